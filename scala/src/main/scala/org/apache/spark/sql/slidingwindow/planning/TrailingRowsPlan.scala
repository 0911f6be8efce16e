package org.apache.spark.sql.slidingwindow.planning

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, ExprId, Expression, MicrosToTimestamp, NamedExpression, SortOrder, UnixMicros}
import org.apache.spark.sql.execution.{ProjectExec, SparkPlan}
import org.apache.spark.sql.slidingwindow.analysis.PlanStreamingTrailingWindows
import org.apache.spark.sql.slidingwindow.expressions.ResolvedName
import org.apache.spark.sql.slidingwindow.logical.{StreamingTrailingWindow, TrailingColumn}
import org.apache.spark.sql.slidingwindow.state.trailing.TrailingRows
import org.apache.spark.sql.types.TimestampType

/**
 * The rows a streaming trailing windows operator keeps, in the order its checkpoint recorded
 * ([[TrailingRows]]): where a restarted query has the same columns in another order (or its frames
 * written the other way, `ORDER BY ts` in SQL or `unix_micros(ts)` from the `trailing_window`
 * helper), its input is projected into the recorded order before the operator, and the
 * operator's output back into the query's order after it. The record check
 * ([[TrailingRows.readableAs]]) has refused any other change before this plans.
 */
private[slidingwindow] object TrailingRowsPlan {

  /** The rows of `w`'s input as its state keeps them, with the columns of the time among them. */
  final case class Input(w: StreamingTrailingWindow) {
    val columns: Seq[Attribute] = w.child.output
    private val orderBy = w.orderSpec.head.child.asInstanceOf[Attribute]
    /** The TIMESTAMP column with the watermark, if the input has it. */
    val time: Option[Attribute] =
      if (orderBy.dataType == TimestampType) columns.find(_.exprId == orderBy.exprId)
      else {
        val source = PlanStreamingTrailingWindows.sourceOf(orderBy, w.child)
        if (source.exprId == orderBy.exprId || source.dataType != TimestampType) None
        else columns.find(_.exprId == source.exprId)
      }
    /** The BIGINT ORDER BY column, `unix_micros` of the time, if the frames are ordered by one. */
    val order: Option[Attribute] =
      if (orderBy.dataType == TimestampType) None else columns.find(_.exprId == orderBy.exprId)

    def rows: TrailingRows = TrailingRows.of(columns, time, order)
  }

  /**
   * The operator over `child` (the plan of `w`'s input) with its input in the order `recorded`:
   * `operator(windowExpressions, partitionSpec, orderSpec, time, its child)` gives it; where
   * `recorded` is that of the query already, the operator alone over `child`.
   */
  def apply(
      w: StreamingTrailingWindow,
      recorded: Option[TrailingRows],
      child: SparkPlan)(
      operator: (Seq[TrailingColumn], Seq[Expression], Seq[SortOrder], Attribute, SparkPlan) => SparkPlan): SparkPlan = {
    val input = Input(w)
    recorded.filter(_.columns != input.rows.columns) match {
      case None => operator(w.windowExpressions, w.partitionSpec, w.orderSpec, w.time, child)
      case Some(rows) => reordered(w, input, rows, child, operator)
    }
  }

  private def reordered(
      w: StreamingTrailingWindow,
      input: Input,
      rows: TrailingRows,
      child: SparkPlan,
      operator: (Seq[TrailingColumn], Seq[Expression], Seq[SortOrder], Attribute, SparkPlan) => SparkPlan): SparkPlan = {
    val roles = (input.time ++ input.order).map(_.exprId).toSet
    // By each column's name as Spark resolves it: the restarted query may write `K` for `k`.
    val byColumn = input.columns.filterNot(a => roles.contains(a.exprId))
      .map(a => ResolvedName(TrailingRows.column(a)) -> a).toMap
    def missing(column: String): Nothing =
      throw new IllegalStateException(s"$column of the recorded rows ${rows.columns} is not in ${input.columns}")
    // The recorded rows, each from the query's input: the time columns from each other.
    val stored: Seq[NamedExpression] = rows.columns.map { c =>
      val name = TrailingRows.nameOf(c)
      val value: NamedExpression =
        if (rows.time.contains(c)) input.time.orElse(input.order.map(o => Alias(MicrosToTimestamp(o), name)()))
          .getOrElse(missing(c))
        else if (rows.order.contains(c)) input.order.orElse(input.time.map(t => Alias(UnixMicros(t), name)()))
          .getOrElse(missing(c))
        else byColumn.getOrElse(ResolvedName(c), missing(c))
      if (value.name == name) value else Alias(value, name)()
    }
    val storedAttributes = stored.map(_.toAttribute)
    def storedAs(column: Option[String]): Option[Attribute] =
      column.map(c => storedAttributes(rows.columns.indexOf(c)))
    // Each column of the query's input, as the stored rows give it.
    val fromInput: Map[ExprId, Expression] = rows.columns.zip(storedAttributes).flatMap { case (c, s) =>
      val of = if (rows.time.contains(c)) input.time else if (rows.order.contains(c)) input.order else byColumn.get(ResolvedName(c))
      of.map(_.exprId -> s)
    }.toMap
    val storedTime = storedAs(rows.time)
    val storedOrder = storedAs(rows.order)
    def valueOf(a: Attribute): Expression = fromInput.getOrElse(a.exprId,
      if (input.time.exists(_.exprId == a.exprId)) MicrosToTimestamp(storedOrder.get)
      else if (input.order.exists(_.exprId == a.exprId)) UnixMicros(storedTime.get)
      else missing(TrailingRows.column(a)))
    def rebound(e: Expression): Expression = e.transform {
      case a: Attribute if input.columns.exists(_.exprId == a.exprId) => valueOf(a)
    }
    // The operator orders by the stored time column, or the stored unix_micros of it.
    val orderBy = storedTime.orElse(storedOrder).get
    val orderSpec = w.orderSpec.map(o => o.copy(child = orderBy))
    val windows = operator(w.windowExpressions.map(rebound(_).asInstanceOf[TrailingColumn]), w.partitionSpec.map(rebound), orderSpec,
      orderBy.withMetadata(w.time.metadata), ProjectExec(stored, child))
    val output = input.columns.map { a =>
      valueOf(a) match {
        case s: Attribute if s.exprId == a.exprId => a
        case e => Alias(e, a.name)(exprId = a.exprId, explicitMetadata = Some(a.metadata))
      }
    } ++ w.windowExpressions.map(_.toAttribute)
    ProjectExec(output, windows)
  }
}
