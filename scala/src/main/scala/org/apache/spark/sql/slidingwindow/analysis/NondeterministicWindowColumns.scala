package org.apache.spark.sql.slidingwindow.analysis

import org.apache.spark.sql.catalyst.expressions.{Alias, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.slidingwindow.expressions.WindowFunction

/**
 * The time and order columns of a window grouping, with a nondeterministic one (such as
 * `timestamp_seconds(rand(7) * 100)`) computed once per row by a Project over the input, as
 * Spark's PullOutNondeterministic computes nondeterministic grouping expressions and its
 * TimeWindowing the time of `window()`. Every use of the time (the null filter, the windows,
 * the order of rows) then sees the one value of the row, and the window grouping refers only to
 * columns (Spark rejects nondeterministic expressions in operators it does not know).
 * Deterministic columns are left as written: the planner computes them where they are used.
 */
case class NondeterministicWindowColumns(time: Expression, order: Option[Expression], child: LogicalPlan)

object NondeterministicWindowColumns {
  def apply(w: WindowFunction, input: LogicalPlan): NondeterministicWindowColumns = {
    val computed = (Seq("__window_time" -> w.timeColumn) ++ w.order.map("__window_order" -> _))
      .collect { case (name, e) if !e.deterministic => (e, Alias(e, name)()) }
    def column(e: Expression): Expression =
      computed.collectFirst { case (c, alias) if c eq e => alias.toAttribute }.getOrElse(e)
    val child = if (computed.isEmpty) input else Project(input.output ++ computed.map(_._2), input)
    NondeterministicWindowColumns(column(w.timeColumn), w.order.map(column), child)
  }
}
