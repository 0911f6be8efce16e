package org.apache.spark.sql.slidingwindow.idle

import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.expressions.DurationText

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

  /** What the error of an idle timeout that is not one says it must be. */
  val timeoutExpected = "a positive duration with a unit, such as 30s, 5min or '10 minutes'"
  /** What the error of a closeAtEndOfInput that is not one says it must be. */
  val closeAtEndOfInputExpected = "true or false"

  /**
   * The settings of the session; unset is off. A value that is set is checked, whatever the
   * other setting: the idle timeout must be a positive duration with a unit ([[parse]]),
   * closeAtEndOfInput true or false (any case); an empty value is refused by both.
   */
  def apply(conf: SQLConf): IdleSettings = {
    val timeout = Option(conf.getConfString(timeoutKey, null)).map(parse)
    val atEnd = Option(conf.getConfString(closeAtEndOfInputKey, null)).exists { value =>
      value.trim.toLowerCase(java.util.Locale.ROOT) match {
        case "true" => true
        case "false" => false
        case _ => WindowErrors.invalidSetting(closeAtEndOfInputKey, value, closeAtEndOfInputExpected)
      }
    }
    IdleSettings(timeout, atEnd)
  }

  /**
   * A positive duration in milliseconds, by the rule of every duration ([[DurationText]]: `30s`,
   * `5min`, `30 seconds`, `INTERVAL 5 MINUTES`; a bare number is refused), of at least a
   * millisecond. Zero is refused
   * too (the watermark would move with the clock at every trigger that brings no rows, so any
   * pause of the input would make its rows late): to turn the timeout off, unset it.
   */
  private def parse(value: String): Long = {
    val ms = DurationText.toMicros(value).fold(_ => -1L, _ / 1000L)
    if (ms <= 0) WindowErrors.invalidSetting(timeoutKey, value, timeoutExpected)
    ms
  }

  def format(ms: Long): String =
    if (ms % 3600000L == 0 && ms > 0) s"${ms / 3600000L}h"
    else if (ms % 60000L == 0 && ms > 0) s"${ms / 60000L}min"
    else if (ms % 1000L == 0) s"${ms / 1000L}s"
    else s"${ms}ms"
}
