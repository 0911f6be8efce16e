package org.apache.spark.sql.slidingwindow.logical

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}
import org.apache.spark.sql.catalyst.util.truncatedString

/**
 * Where a streaming window operator's late rows leave its input, in a query with a late-rows
 * table (docs/streaming.md, "Late rows as data"): right below the operator, so below the shuffle
 * Spark plans for it. Its input holds every column of the row as the watermark saw it (`whole`,
 * the output of the query's `withWatermark`, carried up to here for the late rows only); a row
 * whose time (`time`, the operator's) is at or before the micro-batch's watermark for late rows
 * is written to the table with all of them, and every other row goes on with the operator's
 * input columns only (`output`). Planned as a
 * [[org.apache.spark.sql.slidingwindow.execution.LateRowsSplitExec]].
 */
case class LateRowsSplit(time: Attribute, whole: Seq[Attribute], output: Seq[Attribute], child: LogicalPlan)
  extends UnaryNode {

  override def simpleString(maxFields: Int): String =
    s"${LateRowsSplit.nodeName} time=$time, whole=${truncatedString(whole, "[", ", ", "]", maxFields)}, " +
      s"output=${truncatedString(output, "[", ", ", "]", maxFields)}"

  override protected def withNewChildInternal(newChild: LogicalPlan): LateRowsSplit = copy(child = newChild)
}

object LateRowsSplit {
  val nodeName = "LateRowsSplit"
}
