package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, UnknownPartitioning}
import org.apache.spark.sql.catalyst.util.truncatedString
import org.apache.spark.sql.execution.{ExplainUtils, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.slidingwindow.codegen.ProjectionPool
import org.apache.spark.sql.slidingwindow.late.{LateRowsColumns, LateRowsOutput, LateRowsTarget}
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.StatefulOperatorStateInfo
import org.apache.spark.util.CompletionIterator

/**
 * A streaming window operator's late rows taken out of its input before its shuffle
 * ([[org.apache.spark.sql.slidingwindow.logical.LateRowsSplit]]): a row whose time is at or before
 * the operator's watermark for late rows is written to the query's late-rows table with every
 * column of the row as the watermark saw it (`written`) and goes no further; every other row goes
 * on with the operator's input columns (`output`). Its tasks are the map side of the operator's
 * shuffle, each writing its late rows as one file of the micro-batch, complete before the map
 * task ends, so before any state commits ([[org.apache.spark.sql.slidingwindow.late.LateRowsLog]]).
 *
 * @param time       the operator's time, as its late rows are judged
 * @param operator   the operator's state info: the run, the micro-batch and the operator's id
 * @param watermarks the operator's watermarks for late rows, in microseconds, given with the
 *                   operator's ([[org.apache.spark.sql.slidingwindow.planning.StreamingWatermarks]])
 */
case class LateRowsSplitExec(
    time: Attribute,
    output: Seq[Attribute],
    written: Seq[LateRowsColumns.Written],
    target: LateRowsTarget,
    operator: StatefulOperatorStateInfo,
    watermarks: Option[LateRowsSplitExec.Watermarks],
    child: SparkPlan) extends UnaryExecNode {

  override def nodeName: String = "LateRowsSplit"

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numRowsDroppedByWatermark" -> SQLMetrics.createMetric(sparkContext, "number of rows dropped by watermark"),
    "numLateRowsWritten" -> SQLMetrics.createMetric(sparkContext,
      "number of rows dropped as late that were written to the query's late-rows table"))

  override def outputPartitioning: Partitioning = child.outputPartitioning match {
    case e: Expression if !e.references.subsetOf(outputSet) => UnknownPartitioning(child.outputPartitioning.numPartitions)
    case p => p
  }

  private def columns: String = written.map(_.field.name).mkString("[", ", ", "]")

  override def simpleString(maxFields: Int): String =
    s"$nodeName(time=$time, lateRows=$target, written=$columns, output=${truncatedString(output, "[", ", ", "]", maxFields)})"

  override def verboseStringWithOperatorId(): String = Seq(formattedNodeName,
    ExplainUtils.generateFieldString("Input", child.output),
    ExplainUtils.generateFieldString("Time", time),
    ExplainUtils.generateFieldString("Late rows", target.toString),
    ExplainUtils.generateFieldString("Written", columns),
    ExplainUtils.generateFieldString("Output", output)).mkString("\n", "\n", "\n")

  override protected def doExecute(): RDD[InternalRow] = {
    val numDropped = longMetric("numRowsDroppedByWatermark")
    val numWritten = longMetric("numLateRowsWritten")
    val out = LateRowsOutput.prepare(session, operator.queryRunId, target, operator.storeVersion, written)
    val LateRowsSplitExec.Watermarks(late, sparkLate) = watermarks.getOrElse(LateRowsSplitExec.Watermarks.none)
    val input = child.output
    val types = input.map(_.dataType)
    val timeOrdinal = input.indexWhere(_.exprId == time.exprId)
    val kept = output
    val projected = kept.map(_.exprId) != input.map(_.exprId)
    child.execute().mapPartitionsInternal { rows =>
      val lateRows = LateRowsOutput.rowsOfTask(Some(out), types, late, sparkLate)
      val onTime = rows.filter { row =>
        if (row.isNullAt(timeOrdinal) || row.getLong(timeOrdinal) > late) true
        else { lateRows.add(row, row.getLong(timeOrdinal)); false }
      }
      CompletionIterator[InternalRow, Iterator[InternalRow]](
          if (projected) onTime.map(ProjectionPool.unsafe(kept, input)) else onTime, {
        lateRows.commit()
        numDropped += lateRows.count
        numWritten += lateRows.written
      })
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): LateRowsSplitExec = copy(child = newChild)
}

object LateRowsSplitExec {
  /** An operator's watermark for late rows, and Spark's own (lower where an idle close emitted past it). */
  final case class Watermarks(lateMicros: Long, sparkLateMicros: Long)

  object Watermarks {
    /** Before the operator has its watermarks: no row is late. */
    val none: Watermarks = Watermarks(Long.MinValue, Long.MinValue)
  }

  /** `plan` with the split of operator `operatorId` given its `watermarks`. */
  def withWatermarks(plan: SparkPlan, operatorId: Long, watermarks: Watermarks): SparkPlan = plan.transformDown {
    case s: LateRowsSplitExec if s.operator.operatorId == operatorId => s.copy(watermarks = Some(watermarks))
  }

  /** The split of operator `operatorId` in `plan`, if it has one. */
  def of(plan: SparkPlan, operatorId: Long): Option[LateRowsSplitExec] =
    plan.collectFirst { case s: LateRowsSplitExec if s.operator.operatorId == operatorId => s }
}
