package org.apache.spark.sql.slidingwindow.expressions

import scala.util.control.NonFatal

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.util.DateTimeConstants.{MICROS_PER_DAY, MICROS_PER_HOUR, MICROS_PER_MILLIS, MICROS_PER_MINUTE, MICROS_PER_SECOND}
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.types.{CalendarIntervalType, DayTimeIntervalType, StringType, YearMonthIntervalType}
import org.apache.spark.unsafe.types.CalendarInterval

/**
 * Window sizes: parsing the `size` argument into microseconds (a string by [[DurationText]]'s
 * rule, or an interval), and printing it back.
 */
object WindowSize {

  /** The size in microseconds, or an AnalysisException naming the argument and the problem. */
  def toMicros(function: String, size: Expression): Long = {
    if (!size.foldable) WindowErrors.nonConstantSize(function, size.sql)
    val value =
      try size.eval()
      catch {
        case NonFatal(e) =>
          WindowErrors.invalidSize(function, size.sql, s"it could not be evaluated (${e.getMessage})")
      }
    if (value == null) WindowErrors.invalidSize(function, "NULL", "the size cannot be null")
    size.dataType match {
      case _: StringType =>
        val text = value.toString
        checked(function, s"'$text'", DurationText.toMicros(text))
      case CalendarIntervalType =>
        val interval = value.asInstanceOf[CalendarInterval]
        checked(function, interval.toString, DurationText.toMicros(interval))
      case _: DayTimeIntervalType =>
        positive(function, size.sql, value.asInstanceOf[Long])
      case _: YearMonthIntervalType =>
        WindowErrors.invalidSize(function, size.sql, DurationText.notFixedLength)
      case other =>
        WindowErrors.invalidSize(function, s"${size.sql} of type ${other.sql}",
          "it must be a string such as '10 seconds' or an interval")
    }
  }

  private def checked(function: String, shown: String, micros: Either[String, Long]): Long =
    micros.fold(reason => WindowErrors.invalidSize(function, shown, reason), positive(function, shown, _))

  private def positive(function: String, shown: String, micros: Long): Long = {
    if (micros == 0) WindowErrors.invalidSize(function, shown, "the size is zero")
    if (micros < 0) WindowErrors.invalidSize(function, shown, "the size is negative")
    micros
  }

  private val units = Seq(
    MICROS_PER_DAY -> "day", MICROS_PER_HOUR -> "hour", MICROS_PER_MINUTE -> "minute",
    MICROS_PER_SECOND -> "second", MICROS_PER_MILLIS -> "millisecond", 1L -> "microsecond")

  /** A readable form of a size, in the largest unit that divides it: `10 seconds`. */
  def format(micros: Long): String = {
    val (unit, name) = units.find { case (u, _) => micros % u == 0 }.get
    val n = micros / unit
    s"$n $name${if (n == 1) "" else "s"}"
  }
}
