package org.apache.spark.sql.slidingwindow.stream

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.window.WindowExec
import org.apache.spark.sql.functions.{count, sum, timestamp_seconds}
import org.apache.spark.sql.slidingwindow.api.functions.trailing_window
import org.apache.spark.sql.slidingwindow.planning.TrailingWindowStrategy
import org.apache.spark.sql.streaming.OutputMode

/**
 * Streaming trailing windows (docs/contract.md#trailing-windows) as a user's query runs them:
 * `count` and `sum` over each row's trailing 10 seconds of its key, [t - 10, t] (its peers
 * included), the watermark 5 seconds behind the newest time. Each kept row is emitted once, in the
 * first micro-batch whose watermark is at or past its time, as `(k, t, count, sum of t)`.
 */
class TrailingWindowStreamSuite extends WindowStreamTest {
  import testImplicits._

  private def trailing(rows: DataFrame): DataFrame = {
    val frame = trailing_window(Seq("k"), "ts", "10 seconds")
    rows.select($"k", $"t", count("*").over(frame).as("n"), sum($"t").over(frame).as("total"))
  }

  // The rows emitted below, by the definition: a's 10: [0,10] {10}; 12: [2,12] {10,12};
  // 14: [4,14] {10,12,14}; 25: [15,25] {25}; b's 14: {14}. The late 8 is in none.
  private val dueAt20 = Seq(("a", 10L, 1L, 10L), ("a", 12L, 2L, 22L), ("a", 14L, 3L, 36L), ("b", 14L, 1L, 14L))
  private val dueAt35 = ("a", 25L, 1L, 25L)

  test("each row is emitted once the watermark passes it, late rows dropped and counted") {
    val (input, stream) = events()
    testStream(trailing(stream), OutputMode.Append())(
      // Watermark 14 - 5 = 9: no row is due.
      AddData(input, ("a", 10L), ("a", 14L), ("b", 14L)),
      CheckNewAnswer(),
      // 12 is above the watermark 9, and reaches back to 10. Watermark 20: the rows up to 20 are due.
      AddData(input, ("a", 25L), ("a", 12L)),
      CheckNewAnswer(dueAt20.head, dueAt20.tail: _*),
      StopStream,
      StartStream(),
      // 8 is at or below the watermark 20: dropped, counted, and not in any later row's window.
      AddData(input, ("a", 8L)),
      CheckNewAnswer(),
      AssertOnQuery(rowsDroppedByWatermark(_) == 1, "the row at 8 is counted as dropped"),
      // Watermark 35: 25 is due (14 is out of its window); 40 waits.
      AddData(input, ("a", 40L)),
      CheckNewAnswer(dueAt35))
  }

  test("the values equal Spark's own Window over the rows the stream kept") {
    val kept = Seq(("a", 10L), ("a", 14L), ("b", 14L), ("a", 25L), ("a", 12L), ("a", 40L)).toDF("k", "t")
      .withColumn("ts", timestamp_seconds($"t"))
    withSQLConf(TrailingWindowStrategy.enabledKey -> "false") {
      val window = trailing(kept)
      assert(window.queryExecution.sparkPlan.collect { case w: WindowExec => w }.nonEmpty,
        "Spark's WindowExec computes the reference")
      // 40, not emitted above (the watermark stayed below it), is left out.
      checkAnswer(window.where($"t" <= 35), (dueAt20 :+ dueAt35).map(Row.fromTuple(_)))
    }
  }
}
