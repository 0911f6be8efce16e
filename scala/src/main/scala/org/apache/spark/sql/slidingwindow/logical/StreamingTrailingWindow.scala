package org.apache.spark.sql.slidingwindow.logical

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}
import org.apache.spark.sql.catalyst.util.truncatedString

/**
 * Spark's `Window` node of trailing windows over a stream
 * ([[TrailingColumn]]), which Spark refuses on a stream: the same fields, the same output (every input row, then one column per window
 * expression), planned as a stateful operator that emits each row once the watermark passes its
 * time. `time` is the TIMESTAMP column the ORDER BY is (or is `unix_micros` of), whose watermark
 * decides when rows are emitted and which rows are late.
 */
case class StreamingTrailingWindow(
    windowExpressions: Seq[TrailingColumn],
    partitionSpec: Seq[Expression],
    orderSpec: Seq[SortOrder],
    time: Attribute,
    child: LogicalPlan) extends UnaryNode {

  override def output: Seq[Attribute] = child.output ++ windowExpressions.map(_.toAttribute)

  override def producedAttributes: AttributeSet = AttributeSet(windowExpressions.map(_.toAttribute))

  override def simpleString(maxFields: Int): String =
    s"${StreamingTrailingWindow.nodeName} ${truncatedString(windowExpressions, "[", ", ", "]", maxFields)}, " +
      s"${truncatedString(partitionSpec, "[", ", ", "]", maxFields)}, " +
      s"${truncatedString(orderSpec, "[", ", ", "]", maxFields)}, time=$time"

  override protected def withNewChildInternal(newChild: LogicalPlan): StreamingTrailingWindow =
    copy(child = newChild)
}

object StreamingTrailingWindow {
  val nodeName = "StreamingTrailingWindow"
}
