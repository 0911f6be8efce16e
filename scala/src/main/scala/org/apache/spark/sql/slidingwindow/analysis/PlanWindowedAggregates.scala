package org.apache.spark.sql.slidingwindow.analysis

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, ExprId, Expression, IsNotNull, NamedExpression}
import org.apache.spark.sql.catalyst.planning.PhysicalAggregation
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Filter, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.slidingwindow.expressions.{AggregateIdentity, AsNullable}
import org.apache.spark.sql.slidingwindow.logical.{AggregateColumn, WindowedAggregate, WindowGrouping}
import org.apache.spark.sql.slidingwindow.expressions.WindowPruning
import org.apache.spark.sql.types.DataType

/**
 * Plan normalization (after analysis, before the optimizer): `Aggregate(WindowGrouping)` becomes
 * `Project(results, WindowedAggregate(Filter(time IS NOT NULL, Project(input))))`.
 *
 * It must happen before optimization: optimizer rules would push filters on the window column
 * below the marker, and a streaming `Aggregate` would be planned by Spark's own
 * StatefulAggregationStrategy, which runs before any injected strategy. The aggregate expressions
 * are extracted exactly as Spark's planner does (PhysicalAggregation); grouping keys and the time
 * column that are not plain columns are computed by the Project below, and so are keys
 * normalized where equal values can differ in their bytes (maps, floating-point values), as the
 * optimizer does for an `Aggregate` but not for this node. The results keep the `Aggregate`'s
 * output: its names, ids, types and nullability ([[asReplaced]]).
 */
object PlanWindowedAggregates extends Rule[LogicalPlan] {

  /** The name of the column that computes a time given as an expression. */
  val computedTime = "__window_time"

  // Subquery expressions (IN, EXISTS, scalar) hold plans of their own: normalized too. Plans
  // without an Aggregate are skipped (WindowPruning).
  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!WindowPruning.mayGroupByWindow(plan)) plan
    else plan.transformUpWithSubqueries {
      case agg: Aggregate if agg.child.isInstanceOf[WindowGrouping] =>
        normalize(agg, agg.child.asInstanceOf[WindowGrouping])
    }

  private def normalize(agg: Aggregate, grouping: WindowGrouping): LogicalPlan = {
    val (namedGrouping, aggregates, resultExpressions, _) = PhysicalAggregation.unapply(agg).get
    val (keys, renamed) = normalizeKeys(
      namedGrouping.filterNot(_.toAttribute.exprId == grouping.window.exprId))
    val results = WindowedAggregate.substitute(resultExpressions, renamed)
    def column(e: Expression, name: String): NamedExpression =
      e match {
        case a: Attribute => a
        case other => Alias(other, name)()
      }
    val time = column(grouping.time, computedTime)
    val order = grouping.order.map(column(_, "__window_order"))
    val computed = (keys ++ (time +: order.toSeq)).collect { case a: Alias => a }
    val input = grouping.child
    val projected = if (computed.isEmpty) input else Project(input.output ++ computed, input)
    val withTime = Filter(IsNotNull(time.toAttribute), projected)
    // Each aggregate named after its result attribute, which the results refer to; what it
    // computes is taken here, before the optimizer rewrites it.
    val named = aggregates.map { ae =>
      val result = ae.resultAttribute
      AggregateColumn(ae, result.name, result.exprId, AggregateIdentity.of(ae))
    }
    Project(asReplaced(results, agg.output),
      WindowedAggregate(grouping.definition, keys.map(_.toAttribute), time.toAttribute,
        order.map(_.toAttribute), grouping.window, named, withTime))
  }

  /**
   * The results with the types of the `Aggregate` columns they replace. Spark 4.3 makes the output
   * of a streaming `Aggregate` nullable, nested fields included
   * (`spark.sql.streaming.statefulOperator.alwaysNullableOutput.enabled`, kept per query in its
   * checkpoint), which results computed over the node are not: such a result is typed as the
   * column it replaces ([[AsNullable]]), with its name, id and metadata. Otherwise the plan's output
   * would change between analysis and optimization, which Spark's LogicalRDD (the DataFrame of a
   * foreachBatch micro-batch, `checkpoint()`) logs as a WARN each time, and the operators above
   * would refer to columns of other types than the plan gives. Elsewhere the types are the same.
   */
  private def asReplaced(results: Seq[NamedExpression], replaced: Seq[Attribute]): Seq[NamedExpression] =
    if (results.length != replaced.length) results
    else results.zip(replaced).map {
      case (r, o) if r.dataType == o.dataType && r.nullable == o.nullable => r
      case (r, o) if (o.nullable || !r.nullable) && r.name == o.name && r.exprId == o.exprId &&
          DataType.equalsIgnoreCompatibleNullability(r.dataType, o.dataType) =>
        val value = r match {
          case a: Alias => a.child
          case other => other
        }
        Alias(AsNullable(value, o.dataType), o.name)(o.exprId, o.qualifier, Some(o.metadata))
      case (r, _) => r
    }

  /**
   * Keys that need it are normalized ([[GroupingKeyNormalization]]) by aliases. A computed key
   * keeps its attribute; a key that is a column gets a new one, returned in the map so that
   * results can refer to it.
   */
  private def normalizeKeys(
      keys: Seq[NamedExpression]): (Seq[NamedExpression], Map[ExprId, Attribute]) = {
    val normalized = keys.map {
      case k if !GroupingKeyNormalization.needed(k) => k
      case a: Alias => Alias(GroupingKeyNormalization(a.child), a.name)(exprId = a.exprId)
      case k => Alias(GroupingKeyNormalization(k), k.name)()
    }
    val renamed = keys.zip(normalized).collect {
      case (k: Attribute, n) if n ne k => k.exprId -> n.toAttribute
    }.toMap
    (normalized, renamed)
  }
}
