package org.apache.spark.sql.slidingwindow.expressions

import java.time.{Duration, Period}

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression, Literal}
import org.apache.spark.sql.slidingwindow.TestThrowables
import org.apache.spark.sql.types.StringType
import org.apache.spark.unsafe.types.CalendarInterval

/** Parsing the `size` argument into microseconds, its errors, and printing a size back. */
class WindowSizeSuite extends AnyFunSuite {

  private def micros(size: Expression): Long = WindowSize.toMicros("sliding_window", size)

  /** Asserts that `size` is rejected with WINDOW_INVALID_SIZE and a message containing `problem`. */
  private def rejected(size: Expression, problem: String): Unit = {
    val e = intercept[AnalysisException](micros(size))
    val message = e.getMessage
    assert(TestThrowables.condition(e).startsWith("WINDOW_INVALID_SIZE."), TestThrowables.condition(e))
    assertResult("22023")(e.getSqlState)
    assert(message.contains("sliding_window"), message)
    assert(message.contains(problem), s"expected '$problem' in: $message")
  }

  test("string sizes") {
    assertResult(10000000L)(micros(Literal("10 seconds")))
    assertResult(1L)(micros(Literal("1 microsecond")))
    assertResult(1500L)(micros(Literal("1500 microseconds")))
    assertResult(90L * 60 * 1000000)(micros(Literal("1 hour 30 minutes")))
    assertResult(86400L * 1000000)(micros(Literal("1 day")))
    assertResult(86400L * 1000000 - 3600L * 1000000)(micros(Literal("1 day -1 hour")))
  }

  /** A size takes Spark's time-setting strings as well (DurationText): the same durations. */
  test("time setting sizes") {
    assertResult(micros(Literal("30 seconds")))(micros(Literal("30s")))
    assertResult(micros(Literal("5 minutes")))(micros(Literal("5min")))
    assertResult(micros(Literal("5 minutes")))(micros(Literal("5m")))
    assertResult(micros(Literal("250 milliseconds")))(micros(Literal("250ms")))
    assertResult(micros(Literal("10 microseconds")))(micros(Literal("10us")))
    assertResult(micros(Literal("2 hours")))(micros(Literal("2H")))
    assertResult(micros(Literal("1 day")))(micros(Literal(" 1d ")))
    assertResult(micros(Literal("1 day")))(micros(Literal("INTERVAL 1 DAY")))
    rejected(Literal("0s"), "zero")
    rejected(Literal("-5s"), "negative")
    rejected(Literal("5 s"), "not a duration")
    rejected(Literal("5x"), "not a duration")
    rejected(Literal("99999999999999999999d"), "not a duration")
    rejected(Literal("10000000000d"), "too large")
  }

  /** A bare number has no unit in either form's sense (a time setting reads 5 as 5 ms). */
  test("bare numbers have no unit") {
    rejected(Literal("10"), "no unit")
    rejected(Literal("1.5"), "no unit")
    rejected(Literal(""), "not a duration")
  }

  test("day time interval literal") {
    assertResult(10000000L)(micros(Literal(Duration.ofSeconds(10))))
    assertResult(2L * 86400 * 1000000 + 1)(micros(Literal(Duration.ofDays(2).plusNanos(1000))))
  }

  test("calendar interval literal") {
    assertResult(86400L * 1000000 + 500)(micros(Literal(new CalendarInterval(0, 1, 500))))
    assertResult(5000000L)(micros(Literal(new CalendarInterval(0, 0, 5000000))))
  }

  test("zero and negative sizes") {
    rejected(Literal("0 seconds"), "zero")
    rejected(Literal("-5 seconds"), "negative")
    rejected(Literal(Duration.ZERO), "zero")
    rejected(Literal(Duration.ofSeconds(-1)), "negative")
    rejected(Literal(new CalendarInterval(0, 0, 0)), "zero")
  }

  test("months have no fixed length") {
    rejected(Literal("1 month"), "months")
    rejected(Literal("1 year"), "months")
    rejected(Literal(new CalendarInterval(1, 0, 0)), "months")
    rejected(Literal(Period.ofMonths(2)), "months")
  }

  test("not a duration") {
    rejected(Literal("banana"), "'banana'")
    rejected(Literal("banana"), "not a duration")
    rejected(Literal(10), "type INT")
  }

  test("too large") { rejected(Literal(new CalendarInterval(0, Int.MaxValue, Long.MaxValue)), "too large") }

  test("null size") {
    rejected(Literal(null, StringType), "NULL")
    rejected(Literal(null, StringType), "cannot be null")
    rejected(Literal(null), "cannot be null")
  }

  test("non constant size") {
    val column = AttributeReference("size_col", StringType)()
    rejected(column, "constant")
    rejected(column, "size_col")
  }

  test("format") {
    assertResult("10 seconds")(WindowSize.format(10000000L))
    assertResult("1 microsecond")(WindowSize.format(1))
    assertResult("1500 microseconds")(WindowSize.format(1500))
    assertResult("1 second")(WindowSize.format(1000000))
    assertResult("1500 milliseconds")(WindowSize.format(1500000))
    assertResult("90 minutes")(WindowSize.format(90L * 60 * 1000000))
    assertResult("2 hours")(WindowSize.format(2L * 3600 * 1000000))
    assertResult("3 days")(WindowSize.format(3L * 86400 * 1000000))
  }

  test("format then parse is the identity") {
    for (m <- Seq(1L, 999L, 1000L, 1500000L, 59000000L, 3600000000L, 86400000000L, 86400000001L, 123456789L)) {
      assertResult(m)(micros(Literal(WindowSize.format(m))))
    }
  }
}
