package org.apache.spark.sql.slidingwindow.stream

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider
import org.apache.spark.sql.functions.count
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.TestThrowables
import org.apache.spark.sql.slidingwindow.api.functions.sliding_window
import org.apache.spark.sql.slidingwindow.errors.WindowAnalysisException
import org.apache.spark.sql.slidingwindow.stream.MemoryStreams.MemoryStream
import org.apache.spark.sql.streaming.OutputMode

/**
 * Streaming sliding windows (docs/contract.md#sliding-windows-in-structured-streaming) as a user's
 * query runs them. Windows of 10 seconds over whole-second times, the watermark 5 seconds behind
 * the newest time; each window is `(k, start, end, count)` in seconds. By the definition, a row at
 * t has the left window [t - 10, t], and the right window [t + 1 us, t + 10 s + 1 us] when that
 * holds a row (10.000001 below is 10 s + 1 us).
 */
class SlidingWindowStreamSuite extends WindowStreamTest {
  import testImplicits._

  private def windows(stream: DataFrame, size: String = "10 seconds"): DataFrame =
    stream.groupBy($"k", sliding_window($"ts", size)).agg(count("*").as("n"))
      .select($"k", $"sliding_window.start".cast("double"), $"sliding_window.end".cast("double"), $"n")

  /**
   * Rows a@10 a@14, then a@25, then a@40, in append mode: a window is emitted once, in the
   * micro-batch (here the one without data that Spark runs when the watermark moves) whose
   * watermark has reached its end. `restart` stops the query after each step and starts it again
   * from its checkpoint: the answers are the same.
   */
  private def appendScenario(input: MemoryStream[(String, Long)], restart: Boolean) = {
    val again = if (restart) Seq(StopStream, StartStream()) else Nil
    Seq(
      // Windows [0,10] {10}, [4,14] {10,14}, [10.000001,20.000001] {14}; watermark 14 - 5 = 9: none ends by 9.
      AddData(input, ("a", 10L), ("a", 14L)),
      CheckNewAnswer()) ++ again ++ Seq(
      // New: [15,25] {25}; the right window of 14, [14.000001,24.000001], holds no row.
      // Watermark 20: [0,10] and [4,14] are closed; [10.000001,20.000001] ends after 20.
      AddData(input, ("a", 25L)),
      CheckNewAnswer(("a", 0.0, 10.0, 1L), ("a", 4.0, 14.0, 2L))) ++ again ++ Seq(
      // New: [30,40] {40}; the right window of 25 holds no row. Watermark 35 closes the two
      // windows ending by 35; [30,40] stays open.
      AddData(input, ("a", 40L)),
      CheckNewAnswer(("a", 10.000001, 20.000001, 1L), ("a", 15.0, 25.0, 1L)),
      AssertOnQuery(rowsDroppedByWatermark(_) == 0, "no row was late"))
  }

  test("append mode emits each window once, when the watermark passes its end") {
    val (input, stream) = events()
    testStream(windows(stream), OutputMode.Append())(appendScenario(input, restart = false): _*)
  }

  test("a query restarted from its checkpoint, on RocksDB, continues with the same windows") {
    withSQLConf(SQLConf.STATE_STORE_PROVIDER_CLASS.key -> classOf[RocksDBStateStoreProvider].getName) {
      val (input, stream) = events()
      testStream(windows(stream), OutputMode.Append())(appendScenario(input, restart = true): _*)
    }
  }

  test("update mode emits, in SQL, every window whose rows changed in the micro-batch") {
    val (input, stream) = events()
    withTempView("events") {
      stream.createOrReplaceTempView("events")
      val query = spark.sql(
        """SELECT k, CAST(w.start AS DOUBLE), CAST(w.end AS DOUBLE), n
          |FROM (SELECT k, sliding_window(ts, '10 seconds') AS w, count(*) AS n
          |      FROM events GROUP BY k, sliding_window(ts, '10 seconds'))""".stripMargin)
      testStream(query, OutputMode.Update())(
        AddData(input, ("a", 10L)),
        CheckNewAnswer(("a", 0.0, 10.0, 1L)),
        // New: [4,14] {10,14} and the right window of 10, [10.000001,20.000001] {14}; b's [3,13]
        // {13}; [0,10] unchanged.
        AddData(input, ("a", 14L), ("b", 13L)),
        CheckNewAnswer(("a", 4.0, 14.0, 2L), ("a", 10.000001, 20.000001, 1L), ("b", 3.0, 13.0, 1L)),
        // 12 is above the watermark, 14 - 5 = 9. New: [2,12] {10,12} and the right window of 12,
        // [12.000001,22.000001] {14}; changed: [4,14] {10,12,14} and [10.000001,20.000001]
        // {12,14}; [0,10] and b's window unchanged.
        AddData(input, ("a", 12L)),
        CheckNewAnswer(("a", 2.0, 12.0, 2L), ("a", 4.0, 14.0, 3L), ("a", 10.000001, 20.000001, 2L),
          ("a", 12.000001, 22.000001, 1L)))
    }
  }

  test("late rows are dropped by the watermark and counted") {
    val (input, stream) = events()
    testStream(windows(stream), OutputMode.Append())(
      // [10,20] {20}; watermark 15.
      AddData(input, ("a", 20L)),
      CheckNewAnswer(),
      // 15 is at the watermark: late, dropped. 16 is kept: [6,16] {16}, [10,20] {16,20} and the
      // right window of 16, [16.000001,26.000001] {20}.
      AddData(input, ("a", 15L), ("a", 16L)),
      CheckNewAnswer(),
      AssertOnQuery(rowsDroppedByWatermark(_) == 1, "the row at 15 is counted as dropped"),
      // Watermark 35 closes them all; 15's windows ([5,15], and a count of 3 for [10,20]) are not there.
      AddData(input, ("a", 40L)),
      CheckNewAnswer(("a", 6.0, 16.0, 1L), ("a", 10.0, 20.0, 2L), ("a", 16.000001, 26.000001, 1L)))
  }

  test("a restart with another window size fails with WINDOW_STATE_INCOMPATIBLE_RESTART") {
    withTempDir { dir =>
      val (input, stream) = events()
      testStream(windows(stream, "10 seconds"), OutputMode.Append())(
        StartStream(checkpointLocation = dir.getCanonicalPath),
        AddData(input, ("a", 10L)),
        CheckNewAnswer(),
        StopStream)
      testStream(windows(stream, "20 seconds"), OutputMode.Append())(
        StartStream(checkpointLocation = dir.getCanonicalPath),
        AddData(input, ("a", 14L)),
        ExpectFailure[WindowAnalysisException] { e =>
          assert(TestThrowables.condition(e) == "WINDOW_STATE_INCOMPATIBLE_RESTART")
          assert(e.getMessage.contains("start the changed query from a new checkpoint location"))
        })
    }
  }
}
