package org.apache.spark.sql.slidingwindow.windows

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, AggregateParts, PartialBuilder}

/**
 * The trailing windows of one group's rows, one per frame: for the rows at a time `t`, the
 * aggregates over every row at a time in `[t - size, t - lag]` (RANGE BETWEEN size PRECEDING AND
 * CURRENT ROW when `lag` is 0, AND lag PRECEDING otherwise). Times come in ascending order, each
 * time's rows one by one ([[begin]], [[add]]), then [[results]]. Each frame keeps a Two-Stacks
 * queue of per-time partials, so a time costs O(1) amortized merges per frame however many rows
 * its windows hold; with a lag, the partials of the last `lag` of time wait in a FIFO until they
 * enter the frame. The queues live in [[FrameQueues]]: in memory, or in a stream's state. Frames
 * with the same aggregates (`count(*) OVER w1, count(*) OVER w10`) share each time's partial:
 * it is built once, and pushed into each of their queues.
 *
 * Rows with a null time are peers of each other only: their window is themselves, lag or not (as
 * in Spark's RANGE frames).
 *
 * @param sizes     how far back each frame starts, in microseconds
 * @param lags      how far back each frame ends
 * @param buffers   the aggregates of each frame, over the group's input rows
 * @param frames    the frames' queues
 */
final class TrailingWindows(
    sizes: Array[Long],
    lags: Array[Long],
    buffers: Array[AggregateBuffers],
    frames: FrameQueues) {
  private val queues = sizes.indices.map(frames.queue).toArray
  private val waiting = sizes.indices.map(frames.waiting).toArray
  // Each frame's builder: that of the first frame with the same partials, which builds them for both.
  private val builderFor: Array[PartialBuilder] = {
    val made = new Array[PartialBuilder](buffers.length)
    buffers.indices.foreach { i =>
      val first = buffers.indexWhere(_.samePartials(buffers(i)))
      made(i) = if (first == i) new PartialBuilder(buffers(i)) else made(first)
    }
    made
  }
  private val building: Array[PartialBuilder] = builderFor.distinct
  private val parts = new AggregateParts
  private val out = new Array[InternalRow](sizes.length)

  /** A new group, of partition keys `group`: its frames are those [[FrameQueues.open]] gives. */
  def reset(group: UnsafeRow): Unit = frames.open(group)

  /** The first row of a time, at `time` (`hasTime` false: a null time). */
  def begin(row: InternalRow, hasTime: Boolean, time: Long): Unit = {
    var i = 0
    while (i < building.length) {
      building(i).begin(row)
      i += 1
    }
  }

  /** Another row of the same time. */
  def add(row: InternalRow): Unit = {
    var i = 0
    while (i < building.length) {
      building(i).add(row)
      i += 1
    }
  }

  /** The partial of the time's rows for frame `i`. */
  private def partial(i: Int): UnsafeRow = builderFor(i).result

  /**
   * The results of the windows of the time's rows, at `time` (`hasTime` false: a null time), one
   * row per frame, valid until the next [[begin]]: each frame's evaluated row (its buffers' own,
   * which may point into its queue's partials), not a copy.
   */
  def results(hasTime: Boolean, time: Long): Array[InternalRow] = {
    var i = 0
    while (i < sizes.length) {
      if (hasTime) {
        enter(i, time)
        queues(i).aggregate(parts)
      } else {
        parts.set(partial(i), null)
      }
      out(i) = buffers(i).evaluate(parts)
      i += 1
    }
    out
  }

  /** Frame `i` moves to `time`: the time's partial is pushed (or waits for the lag), the old evicted. */
  private def enter(i: Int, time: Long): Unit = {
    if (waiting(i) == null) {
      queues(i).push(time, partial(i))
    } else {
      val fifo = waiting(i)
      val end = SaturatingTime.sub(time, lags(i))
      while (!fifo.isEmpty && fifo.firstTime <= end) {
        queues(i).push(fifo.firstTime, fifo.first)
        fifo.removeFirst()
      }
      fifo.add(time, partial(i))
    }
    queues(i).evictBefore(SaturatingTime.sub(time, sizes(i)))
  }
}
