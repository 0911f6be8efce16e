package org.apache.spark.sql.slidingwindow.windows

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, TwoStacks, WindowBufferConf}
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.expressions.WindowKind

/**
 * The KIP-450 sliding windows of one group, from its distinct row times in ascending order, in one
 * pass (SPEC section 2).
 *
 * With size S, every time t has a left window [t - S, t], and a right window [t + 1, t + 1 + S]
 * when that holds a row, i.e. when the next time u satisfies u <= t + 1 + S. A window is
 * identified by its bounds, so a right window that equals a later left window (u = t + 1 + S) is
 * produced once. Every window is [a, a + S]; ordered by start a, both its bounds only move
 * forward, so the rows of the current window are a FIFO: times are pushed as they come and evicted
 * below the start of the window being closed. A window can be closed once a time past its end has
 * been seen (or the group ends); windows are closed in start order.
 *
 * The cost per time is O(1) amortized merges ([[TwoStacks]]), whatever the window holds, and
 * memory is bounded (its stacks spill, see [[WindowBufferConf]]).
 * Batch queries feed all times of a group and call [[finish]]; a stream feeds the times a
 * micro-batch can decide and calls [[closeThrough]] with its watermark.
 */
final class SlidingWindowSweep(sizeMicros: Long, buffers: AggregateBuffers, bufferConf: WindowBufferConf) {
  private val contents = new TwoStacks(buffers,
    bufferConf.newStack(buffers.numBufferFields), bufferConf.newStack(buffers.numBufferFields))
  // Starts of windows not yet closed: left windows (t - S) and right windows (t + 1), each
  // ascending as times ascend; merged at close time.
  private val leftStarts = new LongQueue
  private val rightStarts = new LongQueue
  private var hasPrevious = false
  private var previous = 0L

  /** Adds the frozen partial of the rows at `time`; times must be strictly ascending. */
  def add(time: Long, partial: InternalRow, sink: WindowSink): Unit = {
    // Every window ending before `time` now has all its rows.
    if (hasPrevious) closeThrough(time - 1, sink)
    push(time, partial)
  }

  /**
   * Adds the frozen partial of the rows at `time` once every window ending before `time` is
   * closed (`closeThrough(time - 1, ...)` returned false).
   */
  def push(time: Long, partial: InternalRow): Unit = {
    if (time < Long.MinValue + sizeMicros || time > Long.MaxValue - sizeMicros - 1) {
      throw WindowErrors.boundsOverflow(WindowKind.Sliding.functionName, time, sizeMicros)
    }
    if (hasPrevious) {
      assert(time > previous, s"times must ascend: $time after $previous")
      // The previous time's right window holds `time` when time <= previous + 1 + S.
      val gap = time - previous
      if (gap > 0 && gap - 1 <= sizeMicros) rightStarts.add(previous + 1)
    }
    leftStarts.add(time - sizeMicros)
    contents.push(time, partial)
    previous = time
    hasPrevious = true
  }

  /**
   * Closes, in start order, the pending windows that end at or before `maxEnd`, at most `budget`
   * of them; returns whether some are left to close (so that a caller can hand the closed
   * windows on before closing more: one new time can close millions of windows).
   */
  def closeThrough(maxEnd: Long, sink: WindowSink, budget: Int = Int.MaxValue): Boolean = {
    var more = true
    var closed = 0
    while (more && (leftStarts.nonEmpty || rightStarts.nonEmpty)) {
      val start =
        if (rightStarts.isEmpty) leftStarts.head
        else if (leftStarts.isEmpty) rightStarts.head
        else math.min(leftStarts.head, rightStarts.head)
      val end = start + sizeMicros
      if (end > maxEnd) {
        more = false
      } else if (closed == budget) {
        return true
      } else {
        closed += 1
        if (leftStarts.nonEmpty && leftStarts.head == start) leftStarts.removeHead()
        if (rightStarts.nonEmpty && rightStarts.head == start) rightStarts.removeHead()
        contents.evictBefore(start)
        sink.window(start, end, contents)
      }
    }
    false
  }

  /** Closes every pending window (no more rows for this group) and starts a new group. */
  def finish(sink: WindowSink): Unit = {
    closeThrough(Long.MaxValue, sink)
    reset()
  }

  def reset(): Unit = {
    contents.clear()
    leftStarts.clear()
    rightStarts.clear()
    hasPrevious = false
  }
}
