package org.apache.spark.sql.slidingwindow.analysis

import org.apache.spark.sql.catalyst.expressions.{Alias, AttributeReference, Expression, NamedExpression, OuterReference, SessionWindow, TimeWindow}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.expressions.{WindowDefinition, WindowFunction, WindowKind}
import org.apache.spark.sql.slidingwindow.logical.WindowGrouping
import org.apache.spark.sql.slidingwindow.expressions.WindowPruning
import org.apache.spark.sql.types.MetadataBuilder

/**
 * Rewrites an `Aggregate` grouped by a window function, the way Spark's `SessionWindowing` rule
 * rewrites `session_window`: the window function becomes a window attribute, produced by a
 * [[WindowGrouping]] under the `Aggregate`. The attribute carries the time column's metadata (its
 * watermark), so Spark's checks and watermark tracking see it as an event-time grouping column.
 *
 * Argument and placement errors of docs/contract.md, "Bad input" are raised here, with what to
 * change.
 */
object ResolveWindowedAggregates extends Rule[LogicalPlan] {

  // Only an Aggregate is rewritten or rejected here: plans without one are skipped (WindowPruning).
  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!WindowPruning.mayGroupByWindow(plan)) plan
    else plan.resolveOperatorsUpWithPruning(WindowPruning.mayGroupByWindow)(rewriteAggregates)

  private val rewriteAggregates: PartialFunction[LogicalPlan, LogicalPlan] = {
    case a: Aggregate if a.childrenResolved && hasWindowFunction(a.groupingExpressions) &&
        a.groupingExpressions.forall(_.resolved) && a.aggregateExpressions.forall(_.resolved) =>
      rewrite(a)
    case a: Aggregate if a.childrenResolved && a.groupingExpressions.forall(_.resolved) &&
        !hasWindowFunction(a.groupingExpressions) && hasWindowFunction(a.aggregateExpressions) =>
      // (Unresolved grouping, such as GROUP BY 1 or GROUP BY ALL, may still become the window.)
      // Before Spark's own MISSING_AGGREGATION check, which would not say what to do.
      val w = a.aggregateExpressions.flatMap(_.collectFirst { case w: WindowFunction => w }).head
      WindowErrors.outsideGroupBy(
        w.kind.functionName, "the SELECT list of an aggregation that does not group by it")
  }

  private def hasWindowFunction(es: Seq[Expression]): Boolean =
    es.exists(_.exists(_.isInstanceOf[WindowFunction]))

  private def trimAlias(e: Expression): Expression = e match {
    case a: Alias => trimAlias(a.child)
    case other => other
  }

  private def rewrite(a: Aggregate): LogicalPlan = {
    val grouping = a.groupingExpressions.map(trimAlias)
    grouping.foreach {
      case _: WindowFunction =>
      case g => g.collectFirst { case w: WindowFunction => w }
        .foreach(w => WindowErrors.nested(w.kind.functionName, g.sql))
    }
    val windowFunctions = grouping.collect { case w: WindowFunction => w }
    // A window function inside the arguments of another (its time, size or order).
    windowFunctions.foreach(w => w.children.foreach(arg =>
      arg.collectFirst { case inner: WindowFunction => inner }
        .foreach(inner => WindowErrors.nested(inner.kind.functionName, w.sql + "(" + arg.sql + ", ...)"))))
    val windowTime = windowFunctions.head
    // A correlated subquery: Spark pulls outer references up through the operators it knows,
    // not through the windows of this node, and would reject the query without naming them.
    a.child.foreach(node => node.expressions.foreach(_.collectFirst { case o: OuterReference => o }
      .foreach(o => WindowErrors.correlated(windowTime.kind.functionName, o.sql))))
    val definition = WindowDefinition.of(windowTime)
    // Canonical forms, not semanticEquals: a nondeterministic time written the same way in the
    // SELECT and GROUP BY lists is the same window, as Spark matches nondeterministic grouping
    // expressions (PullOutNondeterministic); it is then computed once per row (below).
    def sameWindow(w: WindowFunction): Boolean =
      w.kind == windowTime.kind && w.timeColumn.canonicalized == windowTime.timeColumn.canonicalized &&
        w.order.map(_.canonicalized) == windowTime.order.map(_.canonicalized) &&
        WindowDefinition.of(w) == definition

    val sparkWindows = grouping.filter(g => g.exists {
      case _: TimeWindow | _: SessionWindow => true
      case n: NamedExpression =>
        n.metadata.contains(TimeWindow.marker) || n.metadata.contains(SessionWindow.marker)
      case _ => false
    })
    val others = windowFunctions.filterNot(sameWindow)
    if (others.nonEmpty || sparkWindows.nonEmpty) {
      WindowErrors.multipleWindows(
        (windowTime +: (others ++ sparkWindows)).map(describe).distinct)
    }

    a.aggregateExpressions.foreach(_.foreach {
      case ae: AggregateExpression =>
        ae.collectFirst { case w: WindowFunction => w }
          .foreach(w => WindowErrors.insideAggregate(w.kind.functionName, ae.sql))
      case w: WindowFunction if !sameWindow(w) && differsOnlyNondeterministically(w, windowTime) =>
        WindowErrors.nondeterministicWindowNotGrouped(windowTime.kind.functionName, describe(w))
      case w: WindowFunction if !sameWindow(w) =>
        WindowErrors.windowNotGrouped(windowTime.kind.functionName, describe(w))
      case _ =>
    })

    val metadata = new MetadataBuilder()
      .withMetadata(windowTime.timeColumn match {
        case n: NamedExpression => n.metadata
        case _ => org.apache.spark.sql.types.Metadata.empty
      })
      .putString(WindowKind.metadataKey, windowTime.kind.functionName)
      .build()
    val window = AttributeReference(
      windowTime.kind.functionName, windowTime.dataType, nullable = false, metadata)()

    def replace(e: Expression): Expression = e.transformDown {
      // The window column keeps the window's metadata (the time column's watermark), as the
      // columns of window() and session_window() do, so that stateful operators after the
      // aggregation see an event-time column. An alias with metadata of its own (Spark marks
      // the names it generates) would hide the window's: the two are merged.
      case a @ Alias(w: WindowFunction, name) if sameWindow(w) && a.explicitMetadata.isDefined =>
        val merged = new MetadataBuilder().withMetadata(window.metadata)
          .withMetadata(a.explicitMetadata.get).build()
        Alias(window, name)(a.exprId, a.qualifier, Some(merged), a.nonInheritableMetadataKeys)
      case w: WindowFunction if sameWindow(w) => window
    }
    val input = NondeterministicWindowColumns(windowTime, a.child)
    a.copy(
      groupingExpressions = a.groupingExpressions.map(replace),
      aggregateExpressions = a.aggregateExpressions.map(replace(_).asInstanceOf[NamedExpression]),
      child = WindowGrouping(definition, input.time, input.order, window, input.child))
  }

  /**
   * A window of the SELECT list that would be the grouped one but for a nondeterministic time or
   * order written differently: in SQL, `rand()` without a seed gets a new seed where it is written.
   */
  private def differsOnlyNondeterministically(w: WindowFunction, grouped: WindowFunction): Boolean =
    w.kind == grouped.kind && WindowDefinition.of(w) == WindowDefinition.of(grouped) &&
      (w.timeColumn +: (w.order.toSeq ++ grouped.order :+ grouped.timeColumn)).exists(!_.deterministic)

  private def describe(e: Expression): String = e match {
    case w: WindowFunction =>
      s"${w.kind.functionName}(${(Seq(w.timeColumn, w.size) ++ w.order).map(_.sql).mkString(", ")})"
    case other => other.sql
  }
}
