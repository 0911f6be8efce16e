package org.apache.spark.sql.slidingwindow.idle

import org.apache.spark.network.util.JavaUtils
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.errors.WindowErrors

/**
 * How a streaming query's windows close when its input goes quiet (docs/streaming.md, "When the
 * stream goes quiet"), read from the session when a query (re)starts:
 *
 * @param timeoutMs        `spark.sql.slidingWindow.idleTimeout`: once the query's input has
 *                         brought no rows for this long (processing time, by the micro-batches'
 *                         logged timestamps), the watermark the operator closes windows by moves
 *                         on with the clock ([[IdleClock]]); None: off
 * @param closeAtEndOfInput `spark.sql.slidingWindow.closeAtEndOfInput`: a query run with
 *                         `Trigger.AvailableNow` (Declarative Pipelines' triggered runs) closes
 *                         every window of the rows it has seen at the end of its input
 * @param availableNow     whether the run of the query was started with `Trigger.AvailableNow`
 *                         (known when it plans a micro-batch)
 */
final case class IdleSettings(timeoutMs: Option[Long], closeAtEndOfInput: Boolean, availableNow: Boolean = false) {
  def enabled: Boolean = timeoutMs.isDefined || closeAtEndOfInput

  override def toString: String =
    (timeoutMs.map(ms => s"idle timeout ${IdleSettings.format(ms)}").toSeq ++
      (if (closeAtEndOfInput) Seq("close at end of input") else Nil)).mkString(", ") match {
      case "" => "off"
      case s => s
    }
}

object IdleSettings {
  val timeoutKey = "spark.sql.slidingWindow.idleTimeout"
  val closeAtEndOfInputKey = "spark.sql.slidingWindow.closeAtEndOfInput"

  val off: IdleSettings = IdleSettings(None, closeAtEndOfInput = false)

  def apply(conf: SQLConf): IdleSettings = {
    val timeout = Option(conf.getConfString(timeoutKey, null)).map(_.trim).filter(_.nonEmpty).map(parse)
    val atEnd = conf.getConfString(closeAtEndOfInputKey, "false").trim.toLowerCase match {
      case "true" => true
      case "false" => false
      case other => WindowErrors.invalidSetting(closeAtEndOfInputKey, other, "true or false")
    }
    IdleSettings(timeout, atEnd)
  }

  /**
   * A duration as Spark's time settings take it (`30s`, `5min`, `2h`, a number of milliseconds),
   * or as an interval (`30 seconds`, `INTERVAL 5 MINUTES`); not negative.
   */
  private def parse(value: String): Long = {
    val ms = try JavaUtils.timeStringAsMs(value) catch {
      case _: NumberFormatException =>
        try {
          val interval = org.apache.spark.sql.catalyst.util.IntervalUtils.stringToInterval(
            org.apache.spark.unsafe.types.UTF8String.fromString(value.replaceFirst("(?i)^interval\\s+", "")))
          if (interval.months != 0) -1L
          else Math.addExact(Math.multiplyExact(interval.days.toLong, 86400000L), interval.microseconds / 1000L)
        } catch {
          case _: Exception => -1L
        }
    }
    if (ms < 0) {
      WindowErrors.invalidSetting(timeoutKey, value, "a duration such as 30s, 5min or '10 minutes', not negative")
    }
    ms
  }

  def format(ms: Long): String =
    if (ms % 3600000L == 0 && ms > 0) s"${ms / 3600000L}h"
    else if (ms % 60000L == 0 && ms > 0) s"${ms / 60000L}min"
    else if (ms % 1000L == 0) s"${ms / 1000L}s"
    else s"${ms}ms"
}
