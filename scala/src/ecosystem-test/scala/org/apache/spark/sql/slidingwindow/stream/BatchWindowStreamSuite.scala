package org.apache.spark.sql.slidingwindow.stream

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.{collect_list, sort_array}
import org.apache.spark.sql.slidingwindow.api.functions.batch_window
import org.apache.spark.sql.streaming.OutputMode

/**
 * Streaming batch windows (docs/contract.md#batch-windows) as a user's query runs them. Windows
 * of 5 seconds, the watermark 2 seconds behind the newest time; each window is
 * `(k, start, end, times)`: its rows' times, sorted. By the definition, a row goes to the window
 * [floor(st / 5) * 5, + 5) of its group's stream time st = max(the stream time before it, its
 * time, the micro-batch's watermark), so a late row goes to the open window, and a window is
 * emitted in the append mode once the stream time or the watermark reaches its end.
 */
class BatchWindowStreamSuite extends WindowStreamTest {
  import testImplicits._

  private def windows(stream: DataFrame): DataFrame =
    stream.groupBy($"k", batch_window($"ts", "5 seconds")).agg(sort_array(collect_list($"t")).as("times"))
      .select($"k", $"batch_window.start".cast("long"), $"batch_window.end".cast("long"), $"times")

  test("a late row goes to the open window, in append mode and after a restart") {
    val (input, stream) = events(delay = "2 seconds")
    testStream(windows(stream), OutputMode.Append())(
      // Stream time 1, then 3: both in [0,5), open.
      AddData(input, ("a", 1L), ("a", 3L)),
      CheckNewAnswer(),
      // Stream time 6: [5,10) opens, [0,5) is complete.
      AddData(input, ("a", 6L)),
      CheckNewAnswer(("a", 0L, 5L, Seq(1L, 3L))),
      StopStream,
      StartStream(),
      // 2 is below the watermark (6 - 2 = 4), and the stream time stays 6: into [5,10).
      AddData(input, ("a", 2L)),
      CheckNewAnswer(),
      AssertOnQuery(rowsDroppedByWatermark(_) == 0, "batch windows drop no late row"),
      // Stream time 12: [10,15) opens, [5,10) is complete with the late row.
      AddData(input, ("a", 12L)),
      CheckNewAnswer(("a", 5L, 10L, Seq(2L, 6L))))
  }

  test("update mode emits the changed windows of each micro-batch") {
    val (input, stream) = events(delay = "2 seconds")
    testStream(windows(stream), OutputMode.Update())(
      AddData(input, ("a", 1L), ("b", 7L)),
      CheckNewAnswer(("a", 0L, 5L, Seq(1L)), ("b", 5L, 10L, Seq(7L))),
      // a's stream time is 1, but this micro-batch's watermark is 7 - 2 = 5: a's stream time
      // becomes 5, and 3 goes to [5,10).
      AddData(input, ("a", 3L)),
      CheckNewAnswer(("a", 5L, 10L, Seq(3L))),
      // b's 6: stream time stays 7, [5,10).
      AddData(input, ("b", 6L)),
      CheckNewAnswer(("b", 5L, 10L, Seq(6L, 7L))))
  }
}
