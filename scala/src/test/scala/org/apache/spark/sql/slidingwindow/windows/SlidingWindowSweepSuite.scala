package org.apache.spark.sql.slidingwindow.windows

import scala.collection.mutable.ArrayBuffer
import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.slidingwindow.AggregateFixtures._
import org.apache.spark.sql.slidingwindow.TestThrowables
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, AggregateParts, TwoStacks, WindowBufferConf, WindowContents}
import org.apache.spark.sql.slidingwindow.PropertyCases

/**
 * The sweep against the definition of docs/contract.md, "Sliding windows", computed by brute force:
 * every row time t has a left window [t - S, t] and a right window [t + 1, t + 1 + S]; keep the
 * non-empty ones, once per (start, end), in start order, each aggregating exactly the rows inside
 * it.
 */
class SlidingWindowSweepSuite extends AnyFunSuite {

  type Window = (Long, Long, Result)

  /** Brute force, straight from the definition. Rows in time order, input order within a time. */
  def reference(rows: Seq[Row], size: Long): Seq[Window] = {
    val ordered = rows.sortBy(_.t) // stable: input order within one time
    val candidates = ordered.map(_.t).distinct.flatMap(t => Seq((t - size, t), (t + 1, t + 1 + size)))
    candidates.distinct
      .map { case (s, e) => (s, e, ordered.filter(r => r.t >= s && r.t <= e)) }
      .filter(_._3.nonEmpty)
      .sortBy(_._1)
      .map { case (s, e, inside) => (s, e, expected(inside)) }
  }

  /** A sink that evaluates and copies every window it is given. */
  class Collect(buffers: AggregateBuffers) extends WindowSink {
    val windows = ArrayBuffer.empty[Window]
    private val parts = new AggregateParts
    override def window(start: Long, end: Long, contents: WindowContents): Unit = {
      contents.aggregate(parts)
      windows += ((start, end, result(buffers.evaluate(parts))))
    }
  }

  /**
   * Feeds one group to the sweep: one frozen partial per distinct time, in ascending time order.
   * `between(previous, next)` is called before each time after the first.
   */
  def sweepGroup(sweep: SlidingWindowSweep, buffers: AggregateBuffers, rows: Seq[Row],
      between: (Long, Long, WindowSink) => Unit = (_, _, _) => ()): Seq[Window] = {
    val sink = new Collect(buffers)
    val byTime = rows.sortBy(_.t).foldLeft(Vector.empty[(Long, Vector[Row])]) {
      case (acc :+ ((t, rs)), r) if t == r.t => acc :+ ((t, rs :+ r))
      case (acc, r) => acc :+ ((r.t, Vector(r)))
    }
    var previous: Option[Long] = None
    byTime.foreach { case (t, atT) =>
      previous.foreach(p => between(p, t, sink))
      sweep.add(t, partialOf(buffers, atT), sink)
      previous = Some(t)
    }
    sweep.finish(sink)
    sink.windows.toSeq
  }

  def run(rows: Seq[Row], size: Long): Seq[Window] = {
    val buffers = standardBuffers()
    sweepGroup(new SlidingWindowSweep(size, TwoStacks.inMemory(buffers, WindowBufferConf.default)), buffers, rows)
  }

  def randomRows(rnd: Random): Seq[Row] = {
    val n = 1 + rnd.nextInt(40)
    val base = rnd.nextInt(2001) - 1000L          // negatives included
    val spread = 1 + rnd.nextInt(if (rnd.nextBoolean()) 30 else 300) // small spread: many duplicates
    (0 until n).map { i =>
      val v = if (rnd.nextInt(10) == 0) None else Some(rnd.nextInt(201) - 100L)
      Row(base + rnd.nextInt(spread), v, i)
    }
  }

  def assertWindows(expected: Seq[Window], actual: Seq[Window], context: String): Unit = {
    assertResult(expected.map(w => (w._1, w._2)), s"window bounds, $context")(actual.map(w => (w._1, w._2)))
    expected.zip(actual).foreach { case (e, a) =>
      assertResult(e._3, s"aggregates of [${e._1}, ${e._2}], $context")(a._3)
    }
  }

  test("spec example") {
    // A@10 B@14 C@17 D@25 E@31, S = 10; ids 1..5 stand for A..E.
    val rows = Seq(10L, 14L, 17L, 25L, 31L).zipWithIndex.map { case (t, i) => Row(t, Some(t), i + 1) }
    val windows = run(rows, 10)
    assertResult(Seq((0L, 10L, Seq(1)), (4L, 14L, Seq(1, 2)), (7L, 17L, Seq(1, 2, 3)), (11L, 21L, Seq(2, 3)),
        (15L, 25L, Seq(3, 4)), (18L, 28L, Seq(4)), (21L, 31L, Seq(4, 5)), (26L, 36L, Seq(5))))(
      windows.map(w => (w._1, w._2, w._3.ids)))
    // [15, 25] holds C@17 and D@25: sum 42, max 25, first C, last D.
    assertResult(Result(2, Some(42), Some(25), Seq(3, 4), Some(3), Some(4)))(windows(4)._3)
    assertWindows(reference(rows, 10), windows, "spec example")
  }

  test("single row") {
    val windows = run(Seq(Row(-7, Some(3), 0)), 5)
    assertResult(Seq((-12L, -7L, Result(1, Some(3), Some(3), Seq(0), Some(0), Some(0)))))(windows)
  }

  test("all rows at one time") {
    val rows = Seq(Row(100, Some(5), 4), Row(100, None, 2), Row(100, Some(9), 7), Row(100, Some(-1), 1))
    val windows = run(rows, 3)
    // One left window; the right window [101, 104] is empty. Input order is kept.
    assertResult(Seq((97L, 100L, Result(4, Some(13), Some(9), Seq(4, 2, 7, 1), Some(4), Some(1)))))(windows)
  }

  test("right window equal to later left window is produced once") {
    // Right of 0 is [1, 6]; left of 6 is [1, 6] too.
    val windows = run(Seq(Row(0, Some(1), 0), Row(6, Some(2), 1)), 5)
    assertResult(Seq((-5L, 0L, Seq(0)), (1L, 6L, Seq(1))))(windows.map(w => (w._1, w._2, w._3.ids)))
  }

  test("gap larger than size has no right window") {
    val windows = run(Seq(Row(0, Some(1), 0), Row(7, Some(2), 1)), 5)
    assertResult(Seq((-5L, 0L), (2L, 7L)))(windows.map(w => (w._1, w._2)))
  }

  test("random groups match brute force") {
    val rnd = new Random(450)
    for (i <- 0 until PropertyCases(600)) {
      val rows = randomRows(rnd)
      val size = 1L + rnd.nextInt(50)
      assertWindows(reference(rows, size), run(rows, size), s"case $i, size $size, rows $rows")
    }
  }

  test("tiny chunks and spilling give the same windows") {
    // Chunks of one or two partials, and little or no memory (chunks spilled to disk).
    val rnd = new Random(5)
    for (i <- 0 until PropertyCases(300)) {
      val rows = randomRows(rnd)
      val size = 1L + rnd.nextInt(80)
      val buffers = standardBuffers()
      val conf = WindowBufferConf(64 + rnd.nextInt(100), if (rnd.nextBoolean()) 0L else 400L)
      val sweep = new SlidingWindowSweep(size, TwoStacks.inMemory(buffers, conf))
      assertWindows(reference(rows, size), sweepGroup(sweep, buffers, rows),
        s"case $i, size $size, $conf, rows $rows")
    }
  }

  test("sweep is reusable after finish") {
    val rnd = new Random(7)
    val size = 10L
    val buffers = standardBuffers()
    val sweep = new SlidingWindowSweep(size, TwoStacks.inMemory(buffers, WindowBufferConf.default))
    // Many groups through one sweep; times of the next group may be lower than the previous one's.
    for (i <- 0 until PropertyCases(200)) {
      val rows = randomRows(rnd)
      assertWindows(reference(rows, size), sweepGroup(sweep, buffers, rows), s"group $i, rows $rows")
    }
  }

  test("reset discards an unfinished group") {
    // A stream may drop a group's pending windows: nothing of it may leak into the next group.
    val buffers = standardBuffers()
    val sweep = new SlidingWindowSweep(10, TwoStacks.inMemory(buffers, WindowBufferConf.default))
    val dropped = new Collect(buffers)
    Seq(100L, 104L, 120L).foreach(t => sweep.add(t, partialOf(buffers, Seq(Row(t, Some(1), 99))), dropped))
    sweep.reset()
    val rows = Seq(Row(-3, Some(2), 0), Row(5, Some(3), 1))
    assertWindows(reference(rows, 10), sweepGroup(sweep, buffers, rows), "after reset")
  }

  test("close through between times changes nothing") {
    // What a stream does: close windows through a watermark below the next time to come.
    val rnd = new Random(11)
    for (i <- 0 until PropertyCases(300)) {
      val rows = randomRows(rnd)
      val size = 1L + rnd.nextInt(50)
      val buffers = standardBuffers()
      val sweep = new SlidingWindowSweep(size, TwoStacks.inMemory(buffers, WindowBufferConf.default))
      val watermarks = ArrayBuffer.empty[(Long, Int)]
      val windows = sweepGroup(sweep, buffers, rows, (previous, next, sink) => {
        if (rnd.nextBoolean()) {
          val w = previous + rnd.nextInt((next - previous).toInt) // previous <= w < next
          sweep.closeThrough(w, sink)
          watermarks += ((w, sink.asInstanceOf[Collect].windows.size))
        }
      })
      val context = s"case $i, size $size, rows $rows"
      assertWindows(reference(rows, size), windows, context)
      // Each closeThrough(w) emitted exactly the windows ending at or before w.
      watermarks.foreach { case (w, count) =>
        assertResult(windows.count(_._2 <= w), context)(count)
      }
    }
  }

  test("times whose bounds overflow are rejected") {
    val buffers = standardBuffers()
    val sink = new Collect(buffers)
    for (t <- Seq(Long.MaxValue - 5, Long.MaxValue, Long.MinValue + 5, Long.MinValue)) {
      val sweep = new SlidingWindowSweep(10, TwoStacks.inMemory(buffers, WindowBufferConf.default))
      val e = intercept[ArithmeticException](sweep.add(t, partialOf(buffers, Seq(Row(t, Some(1), 0))), sink))
      assertResult("WINDOW_BOUNDS_OVERFLOW")(TestThrowables.condition(e))
      assert(e.getMessage.contains(t.toString), e.getMessage)
    }
    assert(sink.windows.isEmpty)
  }

  test("extreme times within range work") {
    // The last times whose windows still fit in a Long: t - S >= MinValue and t + 1 + S <= MaxValue.
    val size = 10L
    val low = Seq(Row(Long.MinValue + size, Some(1), 0), Row(Long.MinValue + size + 3, Some(2), 1))
    val high = Seq(Row(Long.MaxValue - size - 4, Some(1), 0), Row(Long.MaxValue - size - 1, Some(2), 1))
    for (rows <- Seq(low, high)) {
      val windows = run(rows, size)
      assertResult(3)(windows.size)
      assertWindows(reference(rows, size), windows, s"rows $rows")
    }
  }
}
