package org.apache.spark.sql.slidingwindow.logical

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, ExprId, Expression, NamedExpression, UnaryExpression, Unevaluable}
import org.apache.spark.sql.catalyst.util.quoteIdentifier
import org.apache.spark.sql.slidingwindow.expressions.AggregateIdentity
import org.apache.spark.sql.types.DataType

/**
 * One aggregate column of a [[WindowedAggregate]]: an expression over aggregate functions, with
 * a name and an exprId, as an `Alias` is in the aggregate list of Spark's `Aggregate`. Optimizer
 * rules may rewrite `child` (DecimalAggregates turns `sum` and `avg` of small decimals into an
 * aggregate of their unscaled longs, converted back to the same type); the column keeps its
 * name, exprId and type, and `identity`, what the analyzed aggregate computes, by which a
 * restarted streaming query is compared with the one that wrote its state.
 *
 * It is not an `Alias` because the optimizer strips aliases from operators it does not know
 * (FoldablePropagation runs CleanupAliases), which would leave the node unnamed aggregates. The
 * planner takes it apart ([[org.apache.spark.sql.slidingwindow.planning.WindowedAggregateStrategy]]):
 * it is never evaluated.
 */
case class AggregateColumn(child: Expression, name: String, exprId: ExprId, identity: AggregateIdentity)
  extends UnaryExpression with NamedExpression with Unevaluable {

  override def dataType: DataType = child.dataType
  override def nullable: Boolean = child.nullable
  override def qualifier: Seq[String] = Nil

  override def toAttribute: Attribute = AttributeReference(name, dataType, nullable)(exprId)
  override def newInstance(): NamedExpression = copy(exprId = NamedExpression.newExprId)

  // As for an Alias, neither the name nor the exprId is part of what the column computes: plans
  // that differ only in them give the same result (the cache manager matches plans by it).
  override lazy val canonicalized: Expression = copy(child = child.canonicalized, name = "", exprId = ExprId(0))

  override def sql: String = s"${child.sql} AS ${quoteIdentifier(name)}"
  override def toString: String = s"$child AS $name#${exprId.id}"

  override protected def withNewChildInternal(newChild: Expression): AggregateColumn =
    copy(child = newChild)
}
