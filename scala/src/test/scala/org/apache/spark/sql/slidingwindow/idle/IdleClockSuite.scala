package org.apache.spark.sql.slidingwindow.idle

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.errors.WindowAnalysisException

/**
 * The rule of docs/streaming.md, "When the stream goes quiet", as the idle clock computes it from
 * one micro-batch to the next, written out by hand for each case.
 */
class IdleClockSuite extends AnyFunSuite {
  private val timeout = IdleSettings(Some(1000L), closeAtEndOfInput = false)
  private val atEnd = IdleSettings(None, closeAtEndOfInput = true, availableNow = true)

  /** The next micro-batch's clock: at `t`, with input or not, under Spark's watermarks. */
  private def next(previous: Option[IdleClock], settings: IdleSettings, t: Long, input: Boolean,
      late: Long, eviction: Long, endOfInput: Boolean = false): IdleClock =
    IdleClock.next(previous, settings, t, input, late, eviction, endOfInput, closeAllMs = eviction + 5000L)

  test("the watermark moves with the clock once quiet for the timeout") {
    val first = next(None, timeout, 10000L, input = true, 0L, 0L)
    assertResult(10000L)(first.lastInputMs)
    assertResult(0L)(first.evictionMs)
    val settled = next(Some(first), timeout, 10500L, input = false, 0L, 4000L) // Spark's moved
    assertResult((4000L, false))((settled.evictionMs, settled.movedOn))
    val quiet = next(Some(settled), timeout, 12500L, input = false, 4000L, 4000L) // 2.5 s quiet
    assertResult(10000L)(quiet.lastInputMs)
    assertResult(4000L + 1500L)(quiet.evictionMs)
    assertResult(4000L)(quiet.lateMs) // the late-rows watermark follows one micro-batch behind
    assert(quiet.movedOn)
    val later = next(Some(quiet), timeout, 13000L, input = false, 4000L, 4000L)
    assertResult((6000L, 5500L))((later.evictionMs, later.lateMs))
  }

  test("rows restart the clock and the watermark never goes back") {
    val quiet = IdleClock(20000L, hadInput = false, lastInputMs = 10000L, sparkEvictionMs = 4000L,
      lateMs = 9000L, evictionMs = 13000L)
    val rows = next(Some(quiet), timeout, 21000L, input = true, 4000L, 4000L)
    assertResult(21000L)(rows.lastInputMs)
    assertResult(13000L)(rows.evictionMs) // Spark's own (4 s) is lower
    assertResult(13000L)(rows.lateMs) // rows in what the idle close emitted are late
    assert(!IdleClock.next(Some(rows), timeout, 21500L, hadInput = false, 4000L, 14000L,
      endOfInput = false, closeAllMs = 0L).movedOn)
  }

  test("end of input closes everything once without input") {
    val data = next(None, atEnd, 1000L, input = true, 0L, 0L)
    assertResult(0L)(data.evictionMs)
    val end = next(Some(data), atEnd, 1100L, input = false, 0L, 4000L, endOfInput = true)
    assertResult(9000L)(end.evictionMs)
    // Not without the setting, nor in a micro-batch with input.
    assertResult(4000L)(next(Some(data), IdleSettings.off, 1100L, input = false, 0L, 4000L, endOfInput = true).evictionMs)
    assertResult(4000L)(next(Some(data), atEnd, 1100L, input = true, 0L, 4000L, endOfInput = true).evictionMs)
  }

  test("another micro-batch only when it closes a window") {
    val clock = IdleClock(10000L, hadInput = false, lastInputMs = 10000L, sparkEvictionMs = 4000L,
      lateMs = 4000L, evictionMs = 4000L)
    // Quiet for 1.5 s past the timeout at 12.5 s: the watermark would reach 5.5 s.
    assert(clock.wantsAnotherBatch(timeout, 4000L, 12500L, nextDueMicros = 5500000L))
    assert(!clock.wantsAnotherBatch(timeout, 4000L, 12500L, nextDueMicros = 5500001L), "nothing due by then")
    assert(!clock.wantsAnotherBatch(timeout, 4000L, 10900L, nextDueMicros = 0L), "not quiet for long enough")
    assert(!clock.wantsAnotherBatch(timeout, 4000L, 99000L, nextDueMicros = Long.MaxValue), "nothing open")
    assert(!clock.wantsAnotherBatch(timeout.copy(availableNow = true), 4000L,
      99000L, nextDueMicros = 0L), "an AvailableNow run ends")
    val data = clock.copy(hadInput = true)
    assert(data.wantsAnotherBatch(atEnd, 4000L, 10001L, 0L), "the end of an AvailableNow run's input")
    assert(!clock.wantsAnotherBatch(atEnd, 4000L, 10001L, 0L), "once")
  }

  test("the clock is kept as JSON") {
    val clock = IdleClock(1L, hadInput = true, lastInputMs = -2L, sparkEvictionMs = Long.MinValue,
      lateMs = Long.MaxValue, evictionMs = 5L)
    assertResult(clock)(IdleClock.fromJson(clock.json))
  }

  test("settings are durations") {
    def read(key: String, value: String): IdleSettings = {
      val conf = new SQLConf
      conf.setConfString(key, value)
      IdleSettings(conf)
    }
    def timeout(value: String): Option[Long] = read(IdleSettings.timeoutKey, value).timeoutMs
    assertResult(Some(30000L))(timeout("30s"))
    assertResult(Some(300000L))(timeout("5min"))
    assertResult(Some(250L))(timeout("250ms"))
    assertResult(Some(600000L))(timeout("10 minutes"))
    assertResult(Some(600000L))(timeout(" 10 minutes "))
    assertResult(Some(7200000L))(timeout("INTERVAL 2 HOURS"))
    assertResult(Some(1L))(timeout("1 millisecond"))
    // Durations by the rule of every duration (DurationText), as a window's size reads them.
    assertResult(Some(300000L))(timeout("5m"))
    assertResult(Some(5400000L))(timeout("1 hour 30 minutes"))
    assert(read(IdleSettings.closeAtEndOfInputKey, " TRUE ").closeAtEndOfInput)
    assert(!read(IdleSettings.closeAtEndOfInputKey, "false").closeAtEndOfInput)
    assertResult(IdleSettings.off)(IdleSettings(new SQLConf))
    // One rule for both: a value that is set is checked; unset is off. A bare number (which
    // Spark's time settings read as milliseconds), zero, a negative, sub-millisecond or empty
    // duration is refused, as an empty or other closeAtEndOfInput is.
    val bad = Seq("soon", "5", "0", "0s", "0 seconds", "-5s", "-5 seconds", "500 microseconds", "500us", "5 s", "1 month",
      "", "  ").map(IdleSettings.timeoutKey -> _) ++
      Seq("", "yes", "1").map(IdleSettings.closeAtEndOfInputKey -> _)
    for ((key, value) <- bad) {
      try {
        read(key, value)
        fail(s"$key=$value was taken")
      } catch {
        case e: WindowAnalysisException =>
          val expected = if (key == IdleSettings.timeoutKey) IdleSettings.timeoutExpected
            else IdleSettings.closeAtEndOfInputExpected
          assert(e.getMessage.startsWith(
            s"[WINDOW_INVALID_SETTING] The setting $key is '$value', but it must be $expected."), e.getMessage)
      }
    }
  }
}
