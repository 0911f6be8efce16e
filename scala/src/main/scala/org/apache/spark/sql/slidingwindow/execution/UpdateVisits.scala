package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.sql.slidingwindow.stored.StoredQueue

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.aggregation.TwoStacks
import org.apache.spark.sql.slidingwindow.state.sliding.StateRowKind.Partial
import org.apache.spark.sql.slidingwindow.windows.{LongQueue, SaturatingTime, SlidingWindowSweep, WindowSink}

/**
 * Sliding windows in update mode: every window of a group that received rows whose rows changed
 * is emitted ([[changedWindows]]), and groups are visited only to expire rows ([[expire]]), on
 * the same schedule as in append mode (so that a run restarted in append mode finds them).
 *
 * Owns the visits' scratch state, reused from group to group: the sweep in memory, the times it
 * pushed, the times to remove.
 *
 * @param sink the sink of a group's windows that a filter `(start, end)` accepts
 */
private[execution] final class UpdateVisits(context: StreamingWindowsContext,
    sink: (UnsafeRow, (Long, Long) => Boolean) => WindowSink) {
  import context._

  private val rows = state.rows
  private val codec = state.codec
  // A sweep over the stored partials near the new times. Empty between works: each resets it.
  private lazy val memorySweep = new SlidingWindowSweep(sizeMicros, TwoStacks.inMemory(buffers, bufferConf))
  // The stored times the sweep has pushed: by the time a window closes, those up to its end.
  private var swept = new Array[Long](64)
  private var sweptCount = 0
  private val toRemove = new LongQueue

  /**
   * The windows of a group open in the state whose rows changed, new ones included, in steps;
   * then, when the group's visit was claimed at its ingestion (`expireAfter`), its [[expire]]. A
   * window changed when it holds a time u that received rows (its start a has u - S <= a <= u),
   * or when it is the right window of a time u that had no row before, [u + 1, u + 1 + S], and no
   * window had its bounds before: none did unless a row was already at its end (the same bounds
   * as that row's left window). Unchanged windows are not emitted. It closes the group when done.
   */
  def changedWindows(group: UnsafeRow, times: NewTimes, expireAfter: Boolean): StepWork =
    new ChangedWindows(group, times, expireAfter)

  private final class ChangedWindows(group: UnsafeRow, times: NewTimes, expireAfter: Boolean) extends StepWork {
    sweptCount = 0
    private def storedAt(t: Long): Boolean = java.util.Arrays.binarySearch(swept, 0, sweptCount, t) >= 0
    private val windows = sink(group, (start, end) =>
      times.receivedWithin(start, end) || (times.isCreated(start - 1) && !storedAt(end)))
    // Such a window holds times in [u - S, u + 1 + S] and exists because of a time in
    // [u - S - 1, u + 1 + S] (its own end for a left window; for a right window, the time before
    // its start and the next one): only the stored partials within S + 1 of a time that received
    // rows are swept.
    private val reach = sizeMicros + 1
    private val near = rows.rows(group, Partial, SaturatingTime.sub(times.head, reach),
      SaturatingTime.add(times.last, reach))
    private var nearOpen = true
    private var pending: InternalRow = _ // the partial at `near.time`, to push

    override def step(): Boolean =
      try {
        if (pending != null) {
          val t = near.time
          if (memorySweep.add(t, pending, windows, 1)) {
            pending = null
            if (sweptCount == swept.length) swept = java.util.Arrays.copyOf(swept, 2 * sweptCount)
            swept(sweptCount) = t
            sweptCount += 1
          }
          true
        } else if (nearOpen) {
          if (!near.next()) {
            near.close()
            nearOpen = false
          } else if (times.receivedWithin(near.time - sizeMicros - 1, near.time + sizeMicros + 1)) {
            pending = near.buffer(codec)
          }
          true
        } else if (memorySweep.closeThrough(Long.MaxValue, windows, 1)) {
          true
        } else {
          memorySweep.reset()
          if (expireAfter) expire(group, evictionWatermarkMicros.get)
          state.close()
          false
        }
      } catch {
        case e: Throwable => if (nearOpen) near.close(); throw e
      }
  }

  /**
   * Removes the rows of a group open in the state that are older than watermark - S, and
   * schedules its next visit when its next window closes, as append mode does: at its first time
   * after the watermark (a left window) or when the right window of its oldest time left ends,
   * whichever comes first (when the oldest rows expire is the later of the two). Update mode
   * itself needs only the clean-up, but a query restarted in append mode from this state finds the
   * group by this schedule, and must emit each window that closes after the restart when it
   * closes. A group left without rows also loses the queue that a run in append mode may have
   * stored.
   */
  def expire(group: UnsafeRow, watermark: Long): Unit = {
    val expiresBefore = SaturatingTime.sub(watermark, sizeMicros)
    toRemove.clear()
    var kept = false
    var oldestKept = 0L
    val partials = rows.rows(group, Partial, Long.MinValue, Long.MaxValue)
    try {
      while (!kept && partials.next()) {
        if (partials.time < expiresBefore) toRemove.add(partials.time) else { oldestKept = partials.time; kept = true }
      }
    } finally partials.close()
    while (toRemove.nonEmpty) rows.remove(group, Partial, toRemove.removeHead())
    if (kept) {
      val nextLeftEnd = if (oldestKept > watermark) oldestKept else firstTimeAfter(group, watermark)
      state.timers.schedule(math.min(nextLeftEnd, SaturatingTime.add(oldestKept, sizeMicros + 1)), group)
    } else {
      StoredQueue.remove(rows, group, toRemove)
    }
  }

  /** The first time after the watermark, or Long.MaxValue if none (no boxing: once per visit). */
  private def firstTimeAfter(group: UnsafeRow, watermark: Long): Long =
    if (watermark == Long.MaxValue) Long.MaxValue
    else {
      val after = rows.rows(group, Partial, watermark + 1, Long.MaxValue)
      try if (after.next()) after.time else Long.MaxValue finally after.close()
    }
}
