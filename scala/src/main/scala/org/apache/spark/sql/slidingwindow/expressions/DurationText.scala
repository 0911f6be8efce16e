package org.apache.spark.sql.slidingwindow.expressions

import java.util.concurrent.TimeUnit

import scala.util.control.NonFatal

import org.apache.spark.network.util.JavaUtils
import org.apache.spark.sql.catalyst.util.DateTimeConstants.MICROS_PER_DAY
import org.apache.spark.sql.catalyst.util.IntervalUtils
import org.apache.spark.unsafe.types.{CalendarInterval, UTF8String}

/**
 * The one rule for a duration the extension reads from text, a window's size as the idle timeout
 * (docs/user-guide.md, "Durations"): either Spark's interval string (`'10 seconds'`, `'1 hour 30
 * minutes'`, `'INTERVAL 5 MINUTES'`, as `CAST(... AS INTERVAL)` reads it) or Spark's time-setting
 * string (`30s`, `5min`, `2h`, `250ms`, `1d`, as Spark's time settings such as `spark.network.timeout`
 * read it). The two forms do not overlap, so each text means what one of them says. A bare number
 * is refused: a time setting reads `5` as 5 ms and an interval refuses it, so it has no one meaning.
 */
object DurationText {

  /** The reason given for a text that is neither form. */
  val notADuration = "it is not a duration"
  /** The reason given for a bare number. */
  val noUnit = "it has no unit; write '10 seconds' or 10s"
  /** The reason given for months or years. */
  val notFixedLength = "months and years have no fixed length; use days, hours, minutes or seconds"
  /** The reason given for a duration beyond 64-bit microseconds. */
  val tooLarge = "it is too large"

  /** The duration in microseconds (zero or negative included: the caller decides), or the reason. */
  def toMicros(text: String): Either[String, Long] = {
    val t = text.trim
    if (t.matches("[+-]?[0-9.]*")) Left(if (t.isEmpty) notADuration else noUnit)
    else timeSetting(t).getOrElse(interval(t))
  }

  /** A calendar interval's duration in microseconds, or why it has none. */
  def toMicros(i: CalendarInterval): Either[String, Long] =
    if (i.months != 0) Left(notFixedLength)
    else {
      try Right(Math.addExact(Math.multiplyExact(i.days.toLong, MICROS_PER_DAY), i.microseconds))
      catch { case _: ArithmeticException => Left(tooLarge) }
    }

  private def timeSetting(t: String): Option[Either[String, Long]] =
    try {
      val micros = JavaUtils.timeStringAs(t, TimeUnit.MICROSECONDS)
      // TimeUnit.convert saturates instead of overflowing.
      Some(if (micros == Long.MaxValue || micros == Long.MinValue) Left(tooLarge) else Right(micros))
    } catch {
      case _: NumberFormatException => None
    }

  private def interval(t: String): Either[String, Long] =
    try toMicros(IntervalUtils.stringToInterval(UTF8String.fromString(t)))
    catch { case NonFatal(_) => Left(notADuration) }
}
