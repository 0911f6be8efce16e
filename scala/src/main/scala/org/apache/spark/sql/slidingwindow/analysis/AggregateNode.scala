package org.apache.spark.sql.slidingwindow.analysis

import org.apache.spark.sql.catalyst.expressions.{Expression, NamedExpression}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, LogicalPlan}

/**
 * An `Aggregate` as (grouping expressions, aggregate expressions, child), whatever else the
 * Spark version's Aggregate carries (Spark 4.0 added a hint).
 */
object AggregateNode {
  def unapply(plan: LogicalPlan): Option[(Seq[Expression], Seq[NamedExpression], LogicalPlan)] = plan match {
    case a: Aggregate => Some((a.groupingExpressions, a.aggregateExpressions, a.child))
    case _ => None
  }
}
