package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, NamedExpression, SortOrder}
import org.apache.spark.sql.catalyst.util.truncatedString
import org.apache.spark.sql.execution.{ExplainUtils, UnaryExecNode}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, WindowBufferConf}
import org.apache.spark.sql.slidingwindow.codegen.ProjectionPool
import org.apache.spark.sql.slidingwindow.expressions.{TrailingFrame, WindowSize}
import org.apache.spark.sql.slidingwindow.shims.SpillableRows
import org.apache.spark.sql.slidingwindow.windows.{FrameQueues, TrailingWindows}

/**
 * What the batch and the streaming trailing windows operators have in common: the fields of
 * Spark's `Window` node, the output (every input row, then one column per window expression), how
 * plans print them, and the one algorithm both run over a group's rows in time order
 * ([[TrailingWindowIterator]] over [[TrailingWindows]]).
 */
trait BaseTrailingWindowExec extends UnaryExecNode {
  def windowExpressions: Seq[NamedExpression]
  def partitionSpec: Seq[Expression]
  def orderSpec: Seq[SortOrder]

  // Each window expression's frame. The node keeps the expressions themselves, so that Spark's
  // rules over a physical plan's expressions (planning a scalar subquery in an aggregate's input)
  // reach them.
  @transient protected lazy val frames: Seq[TrailingFrame] = windowExpressions.map { e =>
    TrailingFrame.of(e, orderSpec).getOrElse(throw new IllegalStateException(s"not a trailing window: $e"))
  }

  override def output: Seq[Attribute] = child.output ++ windowExpressions.map(_.toAttribute)

  // The frames' spans (size, lag), largest first, each with its window expressions in output
  // order.
  protected def bySpan: Seq[((Long, Long), Seq[TrailingFrame])] =
    frames.groupBy(f => (f.size, f.lag)).toSeq.sortBy { case ((size, lag), _) => (-size, lag) }

  /** How far back the largest frame starts, in microseconds. */
  def largestSize: Long = frames.map(_.size).max

  protected def describe(size: Long, lag: Long): String =
    if (lag == 0) WindowSize.format(size) else s"${WindowSize.format(size)} to ${WindowSize.format(lag)} before"

  /** What an operator adds to the plan strings: (name in `explain()`'s line, label in `EXPLAIN FORMATTED`, value). */
  protected def details: Seq[(String, String, String)] = Nil

  override def simpleString(maxFields: Int): String = {
    val sizes = bySpan.map { case ((size, lag), fs) =>
      s"${describe(size, lag)}: ${truncatedString(fs.map(_.aggregate), "[", ", ", "]", maxFields)}"
    }
    s"$nodeName(partition=${truncatedString(partitionSpec, "[", ", ", "]", maxFields)}, " +
      s"order=${truncatedString(orderSpec, "[", ", ", "]", maxFields)}, " +
      s"frames=${sizes.mkString("[", "; ", "]")}, output=${truncatedString(output, "[", ", ", "]", maxFields)}" +
      details.map { case (name, _, value) => s", $name=$value" }.mkString + ")"
  }

  override def verboseStringWithOperatorId(): String = {
    val lines = Seq(
      ExplainUtils.generateFieldString("Input", child.output),
      ExplainUtils.generateFieldString("Partition", partitionSpec),
      ExplainUtils.generateFieldString("Order", orderSpec)) ++
      bySpan.map { case ((size, lag), fs) =>
        ExplainUtils.generateFieldString(s"Frame ${describe(size, lag)}", fs.map(_.output))
      } ++ details.map { case (_, label, value) => ExplainUtils.generateFieldString(label, value) }
    (formattedNodeName +: lines).mkString("\n", "\n", "\n")
  }

  /**
   * On the driver: what a task runs over rows clustered by the partition keys and sorted by time
   * within each group ([[TrailingWindowsRun]]).
   */
  protected def trailingWindows(numGroups: SQLMetric, numOutputRows: SQLMetric): TrailingWindowsRun = {
    val input = child.output
    val groups = bySpan
    val sizes = groups.map(_._1._1).toArray
    val lags = groups.map(_._1._2).toArray
    val aggregates = groups.map(_._2.map(_.aggregate))
    // One result column per window expression, spans in order; the output puts them where the
    // query has them.
    val results = groups.flatMap(_._2.map(_.result))
    val outputExpressions = input ++ frames.map(_.value)
    val (partitionSpec, orderSpec) = (this.partitionSpec, this.orderSpec)
    val bufferConf = WindowBufferConf(conf)
    new TrailingWindowsRun {
      override def apply(rows: Iterator[InternalRow]): Iterator[InternalRow] =
        withQueues(rows, FrameQueues.inMemory(_, lags, bufferConf))

      override def withQueues(rows: Iterator[InternalRow], queues: Array[AggregateBuffers] => FrameQueues)
          : Iterator[InternalRow] = {
        val buffers = aggregates.map(new AggregateBuffers(_, input)).toArray
        new TrailingWindowIterator(
          ProjectionPool.unsafe(partitionSpec, input),
          ProjectionPool.unsafe(Seq(orderSpec.head.child), input),
          new TrailingWindows(sizes, lags, buffers, queues(buffers)),
          SpillableRows(SQLConf.get), // the task's copy of the session's settings
          ProjectionPool.unsafe(outputExpressions, input ++ results),
          rows, numGroups, numOutputRows)
      }
    }
  }
}

/**
 * The trailing windows a task runs over rows clustered by the partition keys, each group's in
 * time order: made on the driver ([[BaseTrailingWindowExec]]), run in the task.
 */
trait TrailingWindowsRun extends Serializable {
  /** The rows with their windows, the frames' queues in memory (each group starts empty). */
  def apply(rows: Iterator[InternalRow]): Iterator[InternalRow]

  /**
   * The rows with their windows, the frames' queues those `queues` keeps for the frames'
   * aggregates (a stream's state resumes each group's).
   */
  def withQueues(rows: Iterator[InternalRow], queues: Array[AggregateBuffers] => FrameQueues): Iterator[InternalRow]
}
