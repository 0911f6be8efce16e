package org.apache.spark.sql.slidingwindow.logical

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}
import org.apache.spark.sql.catalyst.util.truncatedString

/**
 * Spark's `Window` node of trailing windows over a stream
 * ([[TrailingColumn]]), which Spark refuses on a stream: the same fields, the same output (every input row, then one column per window
 * expression), planned as a stateful operator that emits each row once the watermark passes its
 * time, the watermark that also decides which rows are late.
 *
 * @param time     the ORDER BY column, with the watermark of the column it is computed from (a
 *                 TIMESTAMP column ordered by `unix_micros`, which the analyzer computes below)
 * @param timeName the name of that TIMESTAMP column, for messages and the operator record
 */
case class StreamingTrailingWindow(
    windowExpressions: Seq[TrailingColumn],
    partitionSpec: Seq[Expression],
    orderSpec: Seq[SortOrder],
    time: Attribute,
    timeName: String,
    child: LogicalPlan) extends UnaryNode {

  override def output: Seq[Attribute] = child.output ++ windowExpressions.map(_.toAttribute)

  override def producedAttributes: AttributeSet = AttributeSet(windowExpressions.map(_.toAttribute))

  override def simpleString(maxFields: Int): String =
    s"${StreamingTrailingWindow.nodeName} ${truncatedString(windowExpressions, "[", ", ", "]", maxFields)}, " +
      s"${truncatedString(partitionSpec, "[", ", ", "]", maxFields)}, " +
      s"${truncatedString(orderSpec, "[", ", ", "]", maxFields)}, time=$timeName"

  override protected def withNewChildInternal(newChild: LogicalPlan): StreamingTrailingWindow =
    copy(child = newChild)
}

object StreamingTrailingWindow {
  val nodeName = "StreamingTrailingWindow"
}
