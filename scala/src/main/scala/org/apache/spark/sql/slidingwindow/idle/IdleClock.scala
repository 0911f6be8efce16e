package org.apache.spark.sql.slidingwindow.idle

import org.json4s.{DefaultFormats, Formats, JBool, JInt, JObject}
import org.json4s.jackson.JsonMethods.{compact, parse, render}

/**
 * The watermarks a streaming windowed aggregation (or streaming trailing windows) runs one
 * micro-batch with, where its input can go quiet (docs/streaming.md, "When the stream goes quiet"), decided on the driver when the
 * micro-batch is planned, from values Spark logs with the micro-batch (its timestamp and
 * watermark) and the clock of the micro-batch before
 * ([[org.apache.spark.sql.slidingwindow.planning.IdleClockLog]]): a micro-batch run again
 * after a restart reads its clock back, and emits the same windows.
 *
 * The rule, with T the micro-batch's timestamp (`batchTimestampMs` in Spark's offset log), Wsp
 * Spark's eviction watermark for the operator, and `lastInputMs` the timestamp of the last
 * micro-batch whose input had rows:
 *  - idle watermark: Wsp + (T - lastInputMs - timeout), once T - lastInputMs > timeout: Spark's
 *    watermark, stopped since the input went quiet, moved on with the clock;
 *  - end of input (`closeAtEndOfInput`, a micro-batch without input rows of a query run with
 *    `Trigger.AvailableNow`): Wsp + the watermark's delay + the window size + 1 ms, past every
 *    window of the rows seen (Spark's watermark is the latest event time, in whole milliseconds,
 *    less its delay); for trailing windows, whose rows are due at their time, without the size;
 *  - the eviction watermark: the largest of Wsp, those, and the previous micro-batch's: it never
 *    goes back, even when new rows bring Spark's own watermark back below it;
 *  - the late-rows watermark: the larger of Spark's and the previous micro-batch's eviction
 *    watermark: rows in windows an idle close emitted are late.
 *
 * All in milliseconds, as Spark's watermarks.
 *
 * @param batchTimestampMs the micro-batch's timestamp
 * @param hadInput         whether its input had rows
 * @param lastInputMs      the timestamp of the last micro-batch whose input had rows (this one if
 *                         it had)
 * @param sparkEvictionMs  Spark's eviction watermark for the operator
 * @param sparkLateMs      Spark's watermark for late rows for the operator (a row after it but at
 *                         or before `lateMs` is late because of an idle close; a clock logged
 *                         before it was kept reads `lateMs`)
 * @param lateMs           the late-rows watermark the operator uses
 * @param evictionMs       the eviction watermark the operator uses
 */
final case class IdleClock(
    batchTimestampMs: Long,
    hadInput: Boolean,
    lastInputMs: Long,
    sparkEvictionMs: Long,
    lateMs: Long,
    evictionMs: Long,
    sparkLateMs: Long = Long.MinValue) {

  /** Whether this micro-batch closes windows Spark's own watermark leaves open. */
  def movedOn: Boolean = evictionMs > sparkEvictionMs

  /**
   * Whether Spark should run a micro-batch without new input after this one, at the clock's
   * `nowMs`, for windows to close: the idle watermark would have moved past this micro-batch's
   * and reached `nextDueMicros` (the earliest visit the state has scheduled: nothing closes
   * before the watermark reaches it), in a run that is not AvailableNow; or, at the end of an
   * AvailableNow run's input, once, while windows are open.
   */
  def wantsAnotherBatch(settings: IdleSettings, newSparkEvictionMs: Long, nowMs: Long,
      nextDueMicros: Long): Boolean = nextDueMicros != Long.MaxValue && {
    val atEnd = settings.closeAtEndOfInput && settings.availableNow && hadInput
    // An AvailableNow run ends once its input is read: the clock moves by milliseconds meanwhile,
    // and windows waiting for it would keep the run going for their whole size.
    val idle = !settings.availableNow && settings.timeoutMs.exists { timeout =>
      val quietMs = nowMs - lastInputMs - timeout
      val projected = math.max(evictionMs, newSparkEvictionMs + quietMs)
      quietMs > 0 && projected > evictionMs && IdleClock.toMicros(projected) >= nextDueMicros
    }
    atEnd || idle
  }

  def json: String = compact(render(JObject(
    "batchTimestampMs" -> JInt(batchTimestampMs),
    "hadInput" -> JBool(hadInput),
    "lastInputMs" -> JInt(lastInputMs),
    "sparkEvictionMs" -> JInt(sparkEvictionMs),
    "lateMs" -> JInt(lateMs),
    "evictionMs" -> JInt(evictionMs),
    "sparkLateMs" -> JInt(sparkLateMs))))
}

object IdleClock {
  private implicit val formats: Formats = DefaultFormats

  /**
   * Where an operator's state folder logs each micro-batch's clock, one file per batch id
   * (docs/state-format.md, "The idle clock").
   */
  val logFolder = "_sliding_window_agg/idle"

  def fromJson(json: String): IdleClock = {
    val v = parse(json)
    IdleClock((v \ "batchTimestampMs").extract[Long], (v \ "hadInput").extract[Boolean],
      (v \ "lastInputMs").extract[Long], (v \ "sparkEvictionMs").extract[Long],
      (v \ "lateMs").extract[Long], (v \ "evictionMs").extract[Long],
      (v \ "sparkLateMs").extractOpt[Long].getOrElse((v \ "lateMs").extract[Long]))
  }

  private def toMicros(ms: Long): Long =
    if (ms > Long.MaxValue / 1000) Long.MaxValue else if (ms < Long.MinValue / 1000) Long.MinValue else ms * 1000

  /**
   * The clock of a micro-batch at `batchTimestampMs` whose input `hadInput`, after the clock of
   * the micro-batch before, `previous` (none: the first micro-batch of the query, or of a
   * checkpoint written before the clock was kept). `endOfInput`: the micro-batch ends the input
   * of an AvailableNow run; `closeAllMs`: the time past every window of the rows seen, Spark's
   * eviction watermark + the watermark's delay + the window size (none for trailing windows) + 1 ms.
   */
  def next(previous: Option[IdleClock], settings: IdleSettings, batchTimestampMs: Long, hadInput: Boolean,
      sparkLateMs: Long, sparkEvictionMs: Long, endOfInput: Boolean, closeAllMs: => Long): IdleClock = {
    val lastInputMs = previous.filter(_ => !hadInput).map(_.lastInputMs).getOrElse(batchTimestampMs)
    val before = previous.map(_.evictionMs).getOrElse(Long.MinValue)
    val idle = settings.timeoutMs.map { timeout =>
      val quietMs = batchTimestampMs - lastInputMs - timeout
      if (quietMs > 0) sparkEvictionMs + quietMs else Long.MinValue
    }.getOrElse(Long.MinValue)
    val atEnd = if (settings.closeAtEndOfInput && endOfInput && !hadInput) closeAllMs else Long.MinValue
    IdleClock(batchTimestampMs, hadInput, lastInputMs, sparkEvictionMs,
      lateMs = math.max(sparkLateMs, before),
      evictionMs = Seq(sparkEvictionMs, before, idle, atEnd).max,
      sparkLateMs = sparkLateMs)
  }
}
