package org.apache.spark.sql.slidingwindow.logical

import org.apache.spark.sql.catalyst.expressions.{Alias, Ascending, Attribute, AttributeSet, ExprId, Expression, NamedExpression, SortOrder}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnaryNode}
import org.apache.spark.sql.catalyst.util.truncatedString
import org.apache.spark.sql.slidingwindow.expressions.WindowPruning
import org.apache.spark.sql.slidingwindow.expressions.{WindowDefinition, WindowKind}

/**
 * An aggregation grouped by `keys` and by the windows of `definition` over `time`.
 *
 * Output: the keys, the window column, then one [[AggregateColumn]] per aggregate, which
 * optimizer rules may rewrite. Arbitrary result expressions are computed by a Project above this
 * node. Its child provides
 * `keys` and `time` as plain attributes and has no rows with a null time.
 */
case class WindowedAggregate(
    definition: WindowDefinition,
    keys: Seq[Attribute],
    time: Attribute,
    order: Option[Attribute],
    window: Attribute,
    aggregates: Seq[AggregateColumn],
    child: LogicalPlan) extends UnaryNode {
  WindowPruning.created()


  def aggregateAttributes: Seq[Attribute] = aggregates.map(_.toAttribute)

  /** The aggregate functions the aggregates are computed from, each once. */
  def aggregateExpressions: Seq[AggregateExpression] =
    aggregates.flatMap(_.collect { case ae: AggregateExpression => ae }).distinct

  override def output: Seq[Attribute] = (keys :+ window) ++ aggregateAttributes

  // Only what this node creates: pass-through keys must stay in `references` (ColumnPruning).
  override def producedAttributes: AttributeSet = AttributeSet(window +: aggregateAttributes)

  override def simpleString(maxFields: Int): String =
    s"${WindowedAggregate.nodeName(definition)} " +
      WindowedAggregate.describe(definition, keys, time, order, aggregates, maxFields)

  override protected def withNewChildInternal(newChild: LogicalPlan): WindowedAggregate =
    copy(child = newChild)
}

object WindowedAggregate {
  /** `keys=[...], time=..., size=..., [order=..., ]functions=[...]`, as plans print it. */
  def describe(
      definition: WindowDefinition,
      keys: Seq[Attribute],
      time: Attribute,
      order: Option[Attribute],
      aggregates: Seq[Expression],
      maxFields: Int): String = {
    val keyString = truncatedString(keys, "[", ", ", "]", maxFields)
    val fnString = truncatedString(aggregates, "[", ", ", "]", maxFields)
    s"keys=$keyString, time=$time, size=${definition.sizeString}, " +
      order.map(o => s"order=$o, ").getOrElse("") + s"functions=$fnString"
  }

  /**
   * The result expressions of the Project above the node, with the attributes of `replaced`
   * computed by their expressions; a result that is such an attribute keeps its name and exprId.
   * Bottom-up, so that a replacement that refers to an attribute of the same exprId (an
   * aggregate the optimizer rewrote around its own result) is not replaced again.
   */
  def substitute(results: Seq[NamedExpression], replaced: Map[ExprId, Expression]): Seq[NamedExpression] =
    if (replaced.isEmpty) results
    else results.map {
      case a: Attribute if replaced.contains(a.exprId) => Alias(replaced(a.exprId), a.name)(a.exprId)
      case e => e.transformUp {
        case a: Attribute if replaced.contains(a.exprId) => replaced(a.exprId)
      }.asInstanceOf[NamedExpression]
    }

  def nodeName(definition: WindowDefinition): String = definition.kind match {
    case WindowKind.Sliding => "SlidingWindowAggregate"
    case WindowKind.Batch => "BatchWindowAggregate"
  }

  /**
   * How the operators need their input sorted: by group, then in the order rows are applied,
   * `order` first when given (rows with equal `order` by time).
   */
  def inputOrdering(keys: Seq[Attribute], time: Attribute, order: Option[Attribute]): Seq[SortOrder] =
    (keys ++ order.toSeq :+ time).map(SortOrder(_, Ascending))

  /** The operator's name in `StreamingQueryProgress.stateOperators`. */
  def shortName(definition: WindowDefinition): String = definition.kind match {
    case WindowKind.Sliding => "slidingWindowAggregate"
    case WindowKind.Batch => "batchWindowAggregate"
  }
}
