package org.apache.spark.sql.slidingwindow.optimizer

import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.slidingwindow.expressions.WindowPruning
import org.apache.spark.sql.slidingwindow.logical.WindowedAggregate

/**
 * Optimizer rule: a [[WindowedAggregate]] reads only the columns it uses (keys, time, order and
 * the aggregates' inputs), as Spark's `ColumnPruning` makes an `Aggregate` do.
 *
 * `ColumnPruning` prunes the child of an unknown node only through a `Project` right above it,
 * which a `HAVING` or an outer `WHERE` (a `Filter` between them) takes away: then every input
 * column was computed, shuffled and sorted, and a column the query does not use could fail it.
 * The `Project` this rule adds is merged with those below by `CollapseProject`. Subquery plans
 * get it too: the optimizer runs on them (`OptimizeSubqueries`).
 */
object PruneWindowedAggregateInput extends Rule[LogicalPlan] {
  // It runs in every iteration of the optimizer's fixed-point batches, on every query: skipped
  // until a windowed aggregate exists at all (WindowPruning).
  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!WindowPruning.mayHoldWindows) plan
    else plan.transform {
      case agg: WindowedAggregate if !agg.child.outputSet.subsetOf(agg.references) =>
        agg.copy(child = Project(agg.child.output.filter(agg.references.contains), agg.child))
    }
}
