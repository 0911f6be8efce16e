package org.apache.spark.sql.slidingwindow.expressions

import org.apache.spark.sql.catalyst.expressions.{Alias, Ascending, AttributeReference, CurrentRow, Expression, NamedExpression, RangeFrame, SortOrder, SpecifiedWindowFrame, WindowExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.types.{CalendarIntervalType, DayTimeIntervalType, LongType, TimestampNTZType, TimestampType}
import org.apache.spark.unsafe.types.CalendarInterval

/**
 * A trailing window: an aggregate over `PARTITION BY ... ORDER BY <time> RANGE BETWEEN <size>
 * PRECEDING AND CURRENT ROW`, `time` a TIMESTAMP or TIMESTAMP_NTZ in ascending order (or a BIGINT,
 * such as `unix_micros(ts)`, with a BIGINT size: what PySpark's `rangeBetween` can express). Each row's
 * frame is every row of its partition whose time is in `[t - size, t]`: its peers (rows at `t`)
 * included, which is the KIP-450 left window of the row.
 *
 * Its aggregate runs in the JVM ([[JvmAggregate]]): a Window of Python or pandas aggregates over
 * such frames is Spark's own (ArrowWindowPython), whole, as Spark puts them in a Window of their own.
 *
 * The window expression may sit inside a scalar expression, as the optimizer leaves a decimal
 * sum: `MakeDecimal(sum(UnscaledValue(x)) OVER w)`; `value` is that expression over the
 * aggregate's result.
 *
 * @param output    the window expression as the Window node names it (its attribute is a column
 *                  of the output)
 * @param aggregate the aggregate over the frame
 * @param size      how far back the frame starts, in microseconds (0 for `CURRENT ROW`)
 * @param lag       how far back it ends: 0 for `CURRENT ROW`; for `BETWEEN <size> PRECEDING AND
 *                  <lag> PRECEDING` (the hour before the last 5 minutes) the frame is
 *                  `[t - size, t - lag]`, which may hold no row
 * @param result    the aggregate's result
 * @param value     the output column's value, over `result`
 */
final case class TrailingFrame(
    output: NamedExpression,
    aggregate: AggregateExpression,
    size: Long,
    lag: Long,
    result: AttributeReference,
    value: Expression)

object TrailingFrame {
  /** The trailing window of a Window node's expression, if it is one. */
  def of(expression: NamedExpression, orderSpec: Seq[SortOrder]): Option[TrailingFrame] = expression match {
    case Alias(child, _) if isTimeOrder(orderSpec) =>
      child.collect { case w: WindowExpression => w } match {
        case Seq(w @ WindowExpression(ae: AggregateExpression, spec))
            if !ae.isDistinct && ae.filter.isEmpty && spec.orderSpec == orderSpec && JvmAggregate.runs(ae.aggregateFunction) =>
          spec.frameSpecification match {
            case SpecifiedWindowFrame(RangeFrame, lower, upper) =>
              for (size <- sizeOf(lower); lag <- sizeOf(upper) if lag <= size) yield {
                val result = AttributeReference("trailing", ae.dataType, nullable = true)()
                TrailingFrame(expression, ae, size, lag, result, child.transformUp { case `w` => result })
              }
            case _ => None
          }
        case _ => None
      }
    case _ => None
  }

  private def isTimeOrder(orderSpec: Seq[SortOrder]): Boolean = orderSpec match {
    case Seq(SortOrder(time, Ascending, _, _)) =>
      time.dataType == TimestampType || time.dataType == TimestampNTZType || time.dataType == LongType
    case _ => false
  }

  /**
   * How far back a bound is, `<bound>` PRECEDING: a constant fixed-length interval (months vary: none) for a
   * time, a constant BIGINT for a BIGINT order (`unix_micros(ts)` with `rangeBetween(-n, 0)`).
   */
  private def sizeOf(lower: Expression): Option[Long] = lower match {
    case CurrentRow => Some(0L)
    case e if e.foldable && (e.dataType.isInstanceOf[DayTimeIntervalType] ||
        e.dataType == CalendarIntervalType || e.dataType == LongType) =>
      e.eval() match {
        case micros: Long if micros <= 0 && micros != Long.MinValue => Some(-micros)
        case i: CalendarInterval if i.months == 0 && i.days == 0 && i.microseconds <= 0 &&
            i.microseconds != Long.MinValue => Some(-i.microseconds)
        case _ => None
      }
    case _ => None
  }
}
