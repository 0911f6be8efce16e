package org.apache.spark.sql.slidingwindow.expressions

import java.time.{Duration, Period}

import org.junit.Assert._
import org.junit.Test

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression, Literal}
import org.apache.spark.sql.slidingwindow.TestThrowables
import org.apache.spark.sql.types.StringType
import org.apache.spark.unsafe.types.CalendarInterval

/** Parsing the `size` argument into microseconds, its errors, and printing a size back. */
class WindowSizeSuite {

  private def micros(size: Expression): Long = WindowSize.toMicros("sliding_window", size)

  /** Asserts that `size` is rejected with WINDOW_INVALID_SIZE and a message containing `problem`. */
  private def rejected(size: Expression, problem: String): Unit = {
    val e = assertThrows(classOf[AnalysisException], () => micros(size))
    val message = e.getMessage
    assertTrue(TestThrowables.condition(e), TestThrowables.condition(e).startsWith("WINDOW_INVALID_SIZE."))
    assertEquals("22023", e.getSqlState)
    assertTrue(message, message.contains("sliding_window"))
    assertTrue(s"expected '$problem' in: $message", message.contains(problem))
  }

  @Test def stringSizes(): Unit = {
    assertEquals(10000000L, micros(Literal("10 seconds")))
    assertEquals(1L, micros(Literal("1 microsecond")))
    assertEquals(1500L, micros(Literal("1500 microseconds")))
    assertEquals(90L * 60 * 1000000, micros(Literal("1 hour 30 minutes")))
    assertEquals(86400L * 1000000, micros(Literal("1 day")))
    assertEquals(86400L * 1000000 - 3600L * 1000000, micros(Literal("1 day -1 hour")))
  }

  /** A size takes Spark's time-setting strings as well (DurationText): the same durations. */
  @Test def timeSettingSizes(): Unit = {
    assertEquals(micros(Literal("30 seconds")), micros(Literal("30s")))
    assertEquals(micros(Literal("5 minutes")), micros(Literal("5min")))
    assertEquals(micros(Literal("5 minutes")), micros(Literal("5m")))
    assertEquals(micros(Literal("250 milliseconds")), micros(Literal("250ms")))
    assertEquals(micros(Literal("10 microseconds")), micros(Literal("10us")))
    assertEquals(micros(Literal("2 hours")), micros(Literal("2H")))
    assertEquals(micros(Literal("1 day")), micros(Literal(" 1d ")))
    assertEquals(micros(Literal("1 day")), micros(Literal("INTERVAL 1 DAY")))
    rejected(Literal("0s"), "zero")
    rejected(Literal("-5s"), "negative")
    rejected(Literal("5 s"), "not a duration")
    rejected(Literal("5x"), "not a duration")
    rejected(Literal("99999999999999999999d"), "not a duration")
    rejected(Literal("10000000000d"), "too large")
  }

  /** A bare number has no unit in either form's sense (a time setting reads 5 as 5 ms). */
  @Test def bareNumbersHaveNoUnit(): Unit = {
    rejected(Literal("10"), "no unit")
    rejected(Literal("1.5"), "no unit")
    rejected(Literal(""), "not a duration")
  }

  @Test def dayTimeIntervalLiteral(): Unit = {
    assertEquals(10000000L, micros(Literal(Duration.ofSeconds(10))))
    assertEquals(2L * 86400 * 1000000 + 1, micros(Literal(Duration.ofDays(2).plusNanos(1000))))
  }

  @Test def calendarIntervalLiteral(): Unit = {
    assertEquals(86400L * 1000000 + 500, micros(Literal(new CalendarInterval(0, 1, 500))))
    assertEquals(5000000L, micros(Literal(new CalendarInterval(0, 0, 5000000))))
  }

  @Test def zeroAndNegativeSizes(): Unit = {
    rejected(Literal("0 seconds"), "zero")
    rejected(Literal("-5 seconds"), "negative")
    rejected(Literal(Duration.ZERO), "zero")
    rejected(Literal(Duration.ofSeconds(-1)), "negative")
    rejected(Literal(new CalendarInterval(0, 0, 0)), "zero")
  }

  @Test def monthsHaveNoFixedLength(): Unit = {
    rejected(Literal("1 month"), "months")
    rejected(Literal("1 year"), "months")
    rejected(Literal(new CalendarInterval(1, 0, 0)), "months")
    rejected(Literal(Period.ofMonths(2)), "months")
  }

  @Test def notADuration(): Unit = {
    rejected(Literal("banana"), "'banana'")
    rejected(Literal("banana"), "not a duration")
    rejected(Literal(10), "type INT")
  }

  @Test def tooLarge(): Unit = rejected(Literal(new CalendarInterval(0, Int.MaxValue, Long.MaxValue)), "too large")

  @Test def nullSize(): Unit = {
    rejected(Literal(null, StringType), "NULL")
    rejected(Literal(null, StringType), "cannot be null")
    rejected(Literal(null), "cannot be null")
  }

  @Test def nonConstantSize(): Unit = {
    val column = AttributeReference("size_col", StringType)()
    rejected(column, "constant")
    rejected(column, "size_col")
  }

  @Test def format(): Unit = {
    assertEquals("10 seconds", WindowSize.format(10000000L))
    assertEquals("1 microsecond", WindowSize.format(1))
    assertEquals("1500 microseconds", WindowSize.format(1500))
    assertEquals("1 second", WindowSize.format(1000000))
    assertEquals("1500 milliseconds", WindowSize.format(1500000))
    assertEquals("90 minutes", WindowSize.format(90L * 60 * 1000000))
    assertEquals("2 hours", WindowSize.format(2L * 3600 * 1000000))
    assertEquals("3 days", WindowSize.format(3L * 86400 * 1000000))
  }

  @Test def formatThenParseIsTheIdentity(): Unit = {
    for (m <- Seq(1L, 999L, 1000L, 1500000L, 59000000L, 3600000000L, 86400000000L, 86400000001L, 123456789L)) {
      assertEquals(m, micros(Literal(WindowSize.format(m))))
    }
  }
}
