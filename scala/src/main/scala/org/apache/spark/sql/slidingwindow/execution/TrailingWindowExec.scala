package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, BindReferences, Expression, NamedExpression, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.{AllTuples, ClusteredDistribution, Distribution, Partitioning}
import org.apache.spark.sql.catalyst.util.truncatedString
import org.apache.spark.sql.execution.{ExplainUtils, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, WindowBufferConf}
import org.apache.spark.sql.slidingwindow.codegen.ProjectionPool
import org.apache.spark.sql.slidingwindow.expressions.{TrailingFrame, WindowSize}
import org.apache.spark.sql.slidingwindow.shims.SpillableRows
import org.apache.spark.sql.slidingwindow.windows.TrailingWindows

/**
 * Spark's `Window` operator for trailing windows (`agg OVER (PARTITION BY ... ORDER BY time RANGE
 * BETWEEN size PRECEDING AND CURRENT ROW)`) in a batch query: the same input (clustered by the
 * partition keys, sorted by them and the time), the same output (every input row, then one column
 * per window expression), but every size's frames slide with O(1) amortized merges per row
 * instead of recomputing each frame from its rows. Frames of several sizes share one pass.
 */
case class TrailingWindowExec(
    windowExpressions: Seq[NamedExpression],
    partitionSpec: Seq[Expression],
    orderSpec: Seq[SortOrder],
    child: SparkPlan) extends UnaryExecNode {

  // Each window expression's frame. The node keeps the expressions themselves, so that Spark's
  // rules over a physical plan's expressions (planning a scalar subquery in an aggregate's input)
  // reach them.
  @transient private lazy val frames: Seq[TrailingFrame] = windowExpressions.map { e =>
    TrailingFrame.of(e, orderSpec).getOrElse(throw new IllegalStateException(s"not a trailing window: $e"))
  }

  override def nodeName: String = "TrailingWindow"

  override def output: Seq[Attribute] = child.output ++ windowExpressions.map(_.toAttribute)

  override def requiredChildDistribution: Seq[Distribution] =
    if (partitionSpec.isEmpty) AllTuples :: Nil else ClusteredDistribution(partitionSpec) :: Nil

  override def requiredChildOrdering: Seq[Seq[SortOrder]] =
    Seq(partitionSpec.map(SortOrder(_, Ascending)) ++ orderSpec)

  override def outputOrdering: Seq[SortOrder] = child.outputOrdering

  override def outputPartitioning: Partitioning = child.outputPartitioning

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numGroups" -> SQLMetrics.createMetric(sparkContext, "number of partitions of the window"))

  // The frames' spans (size, lag), largest first, each with its window expressions in output
  // order.
  private def bySpan: Seq[((Long, Long), Seq[TrailingFrame])] =
    frames.groupBy(f => (f.size, f.lag)).toSeq.sortBy { case ((size, lag), _) => (-size, lag) }

  private def describe(size: Long, lag: Long): String =
    if (lag == 0) WindowSize.format(size) else s"${WindowSize.format(size)} to ${WindowSize.format(lag)} before"

  override def simpleString(maxFields: Int): String = {
    val sizes = bySpan.map { case ((size, lag), fs) =>
      s"${describe(size, lag)}: ${truncatedString(fs.map(_.aggregate), "[", ", ", "]", maxFields)}"
    }
    s"$nodeName(partition=${truncatedString(partitionSpec, "[", ", ", "]", maxFields)}, " +
      s"order=${truncatedString(orderSpec, "[", ", ", "]", maxFields)}, " +
      s"frames=${sizes.mkString("[", "; ", "]")}, output=${truncatedString(output, "[", ", ", "]", maxFields)})"
  }

  override def verboseStringWithOperatorId(): String = {
    val lines = Seq(
      ExplainUtils.generateFieldString("Input", child.output),
      ExplainUtils.generateFieldString("Partition", partitionSpec),
      ExplainUtils.generateFieldString("Order", orderSpec)) ++
      bySpan.map { case ((size, lag), fs) =>
        ExplainUtils.generateFieldString(s"Frame ${describe(size, lag)}", fs.map(_.output))
      }
    (formattedNodeName +: lines).mkString("\n", "\n", "\n")
  }

  override protected def doExecute(): RDD[InternalRow] = {
    val numOutputRows = longMetric("numOutputRows")
    val numGroups = longMetric("numGroups")
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
    child.execute().mapPartitionsInternal { rows =>
      val buffers = aggregates.map(new AggregateBuffers(_, input)).toArray
      new TrailingWindowIterator(
        ProjectionPool.unsafe(partitionSpec, input),
        BindReferences.bindReference(orderSpec.head.child, input),
        new TrailingWindows(sizes, lags, buffers, bufferConf),
        SpillableRows(SQLConf.get), // the task's copy of the session's settings
        ProjectionPool.unsafe(outputExpressions, input ++ results),
        rows, numGroups, numOutputRows)
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): TrailingWindowExec =
    copy(child = newChild)
}
