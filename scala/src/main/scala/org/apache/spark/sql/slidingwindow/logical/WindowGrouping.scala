package org.apache.spark.sql.slidingwindow.logical

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}
import org.apache.spark.sql.slidingwindow.expressions.WindowPruning
import org.apache.spark.sql.slidingwindow.expressions.WindowDefinition

/**
 * Analysis-time marker under an `Aggregate` grouped by a window function. It adds the window
 * column (`window`) to its child's rows, so that the aggregation above it stays an ordinary
 * `Aggregate` and Spark's own checks apply to it: CheckAnalysis of the aggregate expressions, and
 * for streams the UnsupportedOperationChecker (watermark required in append mode, no DISTINCT).
 *
 * It never reaches the optimizer: [[org.apache.spark.sql.slidingwindow.analysis.PlanWindowedAggregates]]
 * turns `Aggregate(WindowGrouping)` into a [[WindowedAggregate]] right after analysis.
 */
case class WindowGrouping(
    definition: WindowDefinition,
    time: Expression,
    order: Option[Expression],
    window: Attribute,
    child: LogicalPlan) extends UnaryNode {
  WindowPruning.created()


  override def output: Seq[Attribute] = child.output :+ window
  override def producedAttributes: AttributeSet = AttributeSet(window)
  override def simpleString(maxFields: Int): String =
    s"WindowGrouping $definition, time=${time.sql}, " +
      order.map(o => s"order=${o.sql}, ").getOrElse("") + s"window=$window"

  override protected def withNewChildInternal(newChild: LogicalPlan): WindowGrouping =
    copy(child = newChild)
}
