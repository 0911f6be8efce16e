package org.apache.spark.sql.slidingwindow.analysis

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, PivotFirst}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Expand, Filter, LogicalPlan, Project, Sort}
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.expressions.{JvmAggregate, WindowFunction}
import org.apache.spark.sql.slidingwindow.logical.WindowGrouping
import org.apache.spark.sql.slidingwindow.expressions.WindowPruning

/**
 * Runs at the end of analysis (CheckAnalysis): a window function left in the plan was not in the
 * GROUP BY list of an aggregation; an aggregate over a window grouping must be computable by
 * merging partial buffers in the JVM.
 */
object CheckWindowedAggregates extends (LogicalPlan => Unit) {

  // Skipped until a window function exists at all (WindowPruning): one may be left anywhere.
  override def apply(plan: LogicalPlan): Unit = if (WindowPruning.mayHoldWindows) check(plan)

  // Every node, and the plans of subquery expressions (IN, EXISTS, scalar) too.
  private def check(plan: LogicalPlan): Unit = plan.foreach { node =>
    node.subqueries.foreach(check)
    node match {
      // GROUPING SETS, CUBE and ROLLUP are resolved into an Expand over a Project that computes
      // the grouping expressions: the window function is left in that Project.
      case Expand(_, _, child) => windowFunctionIn(child.expressions)
        .foreach(w => WindowErrors.groupingSets(w.kind.functionName))
      // A pivot whose aggregates have simple types is resolved into an aggregation grouped by
      // the pivot column too, under one that pivots its rows (PivotFirst).
      case AggregateNode(_, pivoted, AggregateNode(_, _, g: WindowGrouping)) if pivoted.exists(_.exists {
            case ae: AggregateExpression => ae.aggregateFunction.isInstanceOf[PivotFirst]
            case _ => false
          }) =>
        WindowErrors.pivot(g.definition.kind.functionName)
      case _ =>
    }
    node match {
      case p: Project if isGroupedMapGrouping(p) => windowFunctionIn(p.projectList)
        .foreach(w => WindowErrors.groupedMap(w.kind.functionName))
      case _ =>
    }
    node.expressions.foreach(_.foreach {
      case w: WindowFunction => WindowErrors.outsideGroupBy(w.kind.functionName, where(node))
      case _ =>
    })
    node match {
      case AggregateNode(_, aggregateExpressions, g: WindowGrouping) =>
        val function = g.definition.kind.functionName
        aggregateExpressions.foreach(_.foreach {
          case ae: AggregateExpression if ae.isDistinct =>
            WindowErrors.distinctAggregate(function, ae.sql)
          case ae: AggregateExpression if !JvmAggregate.runs(ae.aggregateFunction) =>
            WindowErrors.unsupportedAggregate(function, ae.aggregateFunction.sql)
          case _ =>
        })
      case _ =>
    }
  }

  private def windowFunctionIn(es: Seq[Expression]): Option[WindowFunction] =
    es.iterator.flatMap(_.collectFirst { case w: WindowFunction => w }).toSeq.headOption

  /**
   * The plan a grouped map (PySpark's `groupBy(...).applyInPandas`, `applyInArrow`,
   * `applyInPandasWithState`, `cogroup`) analyzes on its own before it builds its node: the
   * grouping expressions, then every column of the input, in order.
   */
  private def isGroupedMapGrouping(p: Project): Boolean = {
    val input = p.child.output
    p.projectList.length > input.length && p.projectList.takeRight(input.length) == input &&
      windowFunctionIn(p.projectList.dropRight(input.length)).isDefined
  }

  private def where(node: LogicalPlan): String = node match {
    case _: Project => "a SELECT list without GROUP BY"
    case _: Filter => "a WHERE or HAVING condition"
    case _: Sort => "an ORDER BY clause"
    case _: Aggregate => "the SELECT list of an aggregation that does not group by it"
    case other => s"a ${other.nodeName} operator"
  }
}
