package org.apache.spark.sql.slidingwindow.harness

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, NamedExpression, SortOrder}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.slidingwindow.execution.{BaseTrailingWindowExec, TrailingWindowsRun}

/**
 * A trailing windows node over the harness's input, for what the streaming exec takes from its
 * base on the driver: the frames' algorithm ([[TrailingWindowsRun]]), their lags in the state's
 * order of spans, and the largest size. Never executed.
 */
final case class TrailingNode(
    windowExpressions: Seq[NamedExpression],
    partitionSpec: Seq[Expression],
    orderSpec: Seq[SortOrder],
    child: SparkPlan) extends BaseTrailingWindowExec {

  def run(): TrailingWindowsRun = trailingWindows(new SQLMetric("sum"), new SQLMetric("sum"))

  /** How far back each span ends, spans in the operator's order (as the exec's `lags`). */
  def lags: Array[Long] = bySpan.map(_._1._2).toArray

  override protected def doExecute(): RDD[InternalRow] =
    throw new UnsupportedOperationException("the harness runs the streaming processor itself")

  override protected def withNewChildInternal(newChild: SparkPlan): TrailingNode = copy(child = newChild)
}
