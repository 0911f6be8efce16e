package org.apache.spark.sql.slidingwindow.windows

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.slidingwindow.aggregation.TwoStacks
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.expressions.WindowKind

/**
 * The KIP-450 sliding windows of one group, from its distinct row times in ascending order, in one
 * pass (docs/contract.md, "Sliding windows").
 *
 * With size S, every time t has a left window [t - S, t], and a right window [t + 1, t + 1 + S]
 * when that holds a row, i.e. when the next time u satisfies u <= t + 1 + S. A window is
 * identified by its bounds, so a right window that equals a later left window (u = t + 1 + S) is
 * produced once. Every window is [a, a + S]; ordered by start a, both its bounds only move
 * forward, so the rows of the current window are a FIFO (`contents`): times are pushed as they
 * come and evicted below the start of the window being closed. A window can be closed once a time
 * past its end has been seen (or the group ends); windows are closed in start order.
 *
 * The cost per time is O(1) amortized merges ([[TwoStacks]]), whatever the window holds.
 * Batch queries feed all times of a group and finish it. A stream keeps a group's windows in its
 * state between micro-batches: each micro-batch [[resume]]s the sweep where the last one stopped,
 * over contents kept in the state store, feeds the times that became final, and closes the
 * windows that end by the watermark ([[closeThrough]]).
 */
final class SlidingWindowSweep(sizeMicros: Long, contents: TwoStacks) {
  // Starts of windows not yet closed: left windows (t - S) and right windows (t + 1), each
  // ascending as times ascend, and the right windows of the times a stream pushed in earlier
  // micro-batches (all before the others); merged at close time.
  private val leftStarts = new LongQueue
  private val rightStarts = new LongQueue
  private var earlierRightStarts: Starts = Starts.empty
  private var hasPrevious = false
  private var previous = 0L

  /**
   * Continues a group of a stream: its times up to `previous` were pushed in earlier
   * micro-batches, and the right windows they have that are not closed start at
   * `earlierRightStarts`. The contents queue holds what those windows need.
   */
  def resume(previous: Option[Long], earlierRightStarts: Starts): Unit = {
    leftStarts.clear()
    rightStarts.clear()
    this.earlierRightStarts = earlierRightStarts
    hasPrevious = previous.isDefined
    this.previous = previous.getOrElse(0L)
  }

  /** The last time pushed, if any. */
  def lastTime: Option[Long] = if (hasPrevious) Some(previous) else None

  /** The start of the first window not closed yet, among those known. */
  def nextStart: Option[Long] = {
    val start = firstStart
    if (start == NoStart) None else Some(start)
  }

  // No window starts at Long.MaxValue: starts are t - S or t + 1 with t + 1 + S <= Long.MaxValue.
  private val NoStart = Long.MaxValue
  private def headOf(s: Starts): Long = if (s.isEmpty) NoStart else s.head
  private def firstStart: Long =
    math.min(headOf(earlierRightStarts), math.min(headOf(leftStarts), headOf(rightStarts)))

  /**
   * Adds the frozen partial of the rows at `time`; times must be strictly ascending. Every window
   * ending before `time` now has all its rows: they are closed first, at most `budget` of them.
   * Returns whether the partial was pushed; when it was not, windows are left to close, and the
   * caller hands on those closed, then calls again with the same time and partial (which must
   * stay valid): one new time can close millions of windows.
   */
  def add(time: Long, partial: InternalRow, sink: WindowSink, budget: Int = Int.MaxValue): Boolean = {
    if (hasPrevious && closeThrough(time - 1, sink, budget)) return false
    push(time, partial)
    true
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
    var closed = 0
    while (true) {
      val start = firstStart
      if (start == NoStart || start + sizeMicros > maxEnd) return false
      if (closed == budget) return true
      closed += 1
      if (!earlierRightStarts.isEmpty && earlierRightStarts.head == start) earlierRightStarts.removeHead()
      if (!leftStarts.isEmpty && leftStarts.head == start) leftStarts.removeHead()
      if (!rightStarts.isEmpty && rightStarts.head == start) rightStarts.removeHead()
      contents.evictBefore(start)
      sink.window(start, start + sizeMicros, contents)
    }
    false
  }

  /** Closes every pending window (no more rows for this group) and starts a new group. */
  def finish(sink: WindowSink): Unit = {
    closeThrough(Long.MaxValue, sink)
    reset()
  }

  /** Forgets the group: no times, no pending windows, empty contents. */
  def reset(): Unit = {
    contents.clear()
    resume(None, Starts.empty)
  }
}
