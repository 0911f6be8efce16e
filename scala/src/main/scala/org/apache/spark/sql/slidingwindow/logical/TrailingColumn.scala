package org.apache.spark.sql.slidingwindow.logical

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeReference, CurrentRow, ExprId, Expression, Literal, NamedExpression, RangeFrame, SortOrder, SpecifiedWindowFrame, UnaryExpression, Unevaluable, WindowExpression, WindowSpecDefinition}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, AggregateFunction, Complete}
import org.apache.spark.sql.catalyst.util.quoteIdentifier
import org.apache.spark.sql.slidingwindow.expressions.{TrailingFrame, WindowSize}
import org.apache.spark.sql.types.{DataType, DayTimeIntervalType, LongType}

/**
 * One column of a [[StreamingTrailingWindow]]: an aggregate function over a trailing frame (`size`
 * and `lag` in microseconds), the window expression of Spark's `Window` node, with its alias's
 * name and exprId.
 *
 * It holds the aggregate function, not Spark's window and aggregate expressions around it, nor an
 * `Alias`: Spark's analysis accepts window and aggregate expressions in its own operators only
 * (CheckAnalysis, UNSUPPORTED_EXPR_FOR_OPERATOR), and its CleanupAliases strips aliases from
 * operators it does not know. The function stays a child, so that Spark's rewrites of a plan's
 * columns (a micro-batch's source columns) reach it. The planner builds the window expression
 * back ([[toAlias]]); it is never evaluated.
 */
case class TrailingColumn(function: AggregateFunction, size: Long, lag: Long, name: String, exprId: ExprId)
  extends UnaryExpression with NamedExpression with Unevaluable {

  override def child: Expression = function
  override def dataType: DataType = function.dataType
  // As Spark's WindowExpression: the function's (count is never null, even over an empty frame).
  override def nullable: Boolean = function.nullable
  override def qualifier: Seq[String] = Nil

  override def toAttribute: Attribute = AttributeReference(name, dataType, nullable)(exprId)
  override def newInstance(): NamedExpression = copy(exprId = NamedExpression.newExprId)

  // As for an Alias, neither the name nor the exprId is part of what the column computes.
  override lazy val canonicalized: Expression =
    copy(function = function.canonicalized.asInstanceOf[AggregateFunction], name = "", exprId = ExprId(0))

  /** The window expression of Spark's `Window` node, named as the column. */
  def toAlias(partitionSpec: Seq[Expression], orderSpec: Seq[SortOrder]): Alias = {
    val interval = orderSpec.head.dataType match {
      case LongType => (micros: Long) => Literal(-micros, LongType)
      case _ => (micros: Long) => Literal(-micros, DayTimeIntervalType())
    }
    val frame = SpecifiedWindowFrame(RangeFrame, interval(size), if (lag == 0) CurrentRow else interval(lag))
    Alias(WindowExpression(AggregateExpression(function, Complete, isDistinct = false),
      WindowSpecDefinition(partitionSpec, orderSpec, frame)), name)(exprId)
  }

  private def span: String =
    if (lag == 0) WindowSize.format(size) else s"${WindowSize.format(size)} to ${WindowSize.format(lag)} before"

  override def sql: String = s"${function.sql(false)} OVER ($span) AS ${quoteIdentifier(name)}"
  override def toString: String = s"$function OVER ($span) AS $name#${exprId.id}"

  override protected def withNewChildInternal(newChild: Expression): TrailingColumn =
    copy(function = newChild.asInstanceOf[AggregateFunction])
}

object TrailingColumn {
  /** The column of a window expression of a `Window` node, if it is an aggregate over a trailing frame. */
  def of(expression: NamedExpression, orderSpec: Seq[SortOrder]): Option[TrailingColumn] =
    TrailingFrame.of(expression, orderSpec).collect {
      case f if f.value == f.result => TrailingColumn(f.aggregate.aggregateFunction, f.size, f.lag, f.output.name, f.output.exprId)
    }
}
