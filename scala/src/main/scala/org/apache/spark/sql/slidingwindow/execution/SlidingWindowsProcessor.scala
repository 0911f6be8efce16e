package org.apache.spark.sql.slidingwindow.execution

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.aggregation.PartialBuilder
import org.apache.spark.sql.slidingwindow.windows.SlidingWindowSweep

/**
 * Sliding windows (SPEC section 2) in one micro-batch of one partition:
 *
 *  1. ingest: rows at or below the late-events watermark are dropped; the others are
 *     pre-aggregated per (group, time) and merged into the stored partial of that time;
 *  2. emit: append mode, every window whose end passed the eviction watermark in this batch
 *     (groups found through the [[WindowTimeIndex]]); update mode, every window of a touched group whose
 *     rows changed (start within [u - S, u + 1] of a new time u);
 *  3. evict: partials older than eviction watermark - S, which no open window can need.
 *
 * Windows are enumerated by the same [[SlidingWindowSweep]] as batch queries.
 */
final class SlidingWindowsProcessor(context: StreamingWindowsContext)
  extends StreamingWindowsProcessor(context) {
  import context._

  private val dataKeyOfInput = layout.dataKeyOfInput(time, inputAttributes)
  private val sweep = new SlidingWindowSweep(sizeMicros, buffers, bufferConf)

  override def process(input: Iterator[InternalRow]): Seq[InternalRow] = {
    val newTimes = ingest(input)
    val out = new mutable.ArrayBuffer[InternalRow]
    if (appendMode) {
      evictionWatermarkMicros.foreach(emitClosed(_, out))
    } else {
      newTimes.foreach { case (group, times) => emitChanged(group, times.toArray, out) }
    }
    evictionWatermarkMicros.foreach(evict)
    out.toSeq
  }

  /** Stores the new rows; returns each touched group with its new times (ascending). */
  private def ingest(input: Iterator[InternalRow]): mutable.LinkedHashMap[UnsafeRow, mutable.ArrayBuffer[Long]] = {
    val touched = mutable.LinkedHashMap.empty[UnsafeRow, mutable.ArrayBuffer[Long]]
    val late = lateEventsWatermarkMicros.getOrElse(Long.MinValue)
    val partial = new PartialBuilder(buffers)
    var current: UnsafeRow = null
    def flush(): Unit = if (current != null) {
      val stored = store.get(current, layout.dataFamily)
      val merged =
        if (stored == null) {
          index.added(current)
          partial.result
        } else {
          buffers.mergePartials(stored, partial.result)
        }
      store.put(current, merged, layout.dataFamily)
      updatedStateRows += 1
      touched.getOrElseUpdate(groupOfData(current).copy(), mutable.ArrayBuffer.empty[Long]) +=
        current.getLong(layout.groupWidth)
      current = null
    }
    input.foreach { row =>
      if (!row.isNullAt(timeOrdinal)) {
        if (row.getLong(timeOrdinal) <= late) {
          droppedLateRows += 1
        } else {
          val key = dataKeyOfInput(row)
          if (current != null && key == current) {
            partial.add(row)
          } else {
            flush()
            current = key.copy()
            partial.begin(row)
          }
        }
      }
    }
    flush()
    touched
  }

  /** Append mode: windows ending in (late-events watermark, eviction watermark]. */
  private def emitClosed(evictionWatermark: Long, out: mutable.ArrayBuffer[InternalRow]): Unit = {
    val previous = lateEventsWatermarkMicros.getOrElse(Long.MinValue)
    if (evictionWatermark <= previous) return
    // Windows ending after `previous` hold times from previous - S on.
    val from = if (previous == Long.MinValue) Long.MinValue else previous - sizeMicros
    val groups = index.groupsUpTo(evictionWatermark)
    groups.foreach { group =>
      val sink = new Sink(group, out, (_, end) => end > previous)
      loadGroup(group, from, evictionWatermark).foreach { case (t, p) => sweep.add(t, p, sink) }
      sweep.closeThrough(evictionWatermark, sink)
      sweep.reset()
    }
  }

  /** Update mode: windows whose start is within [u - S, u + 1] of a new time u. */
  private def emitChanged(group: UnsafeRow, newTimes: Array[Long], out: mutable.ArrayBuffer[InternalRow]): Unit = {
    java.util.Arrays.sort(newTimes)
    // Is there a new time u with from <= u <= to?
    def newTimeWithin(from: Long, to: Long): Boolean = {
      var i = java.util.Arrays.binarySearch(newTimes, from)
      if (i < 0) i = -i - 1
      i < newTimes.length && newTimes(i) <= to
    }
    // A window [a, a + S] changed when a new time u has u - S <= a <= u + 1. It holds times in
    // [u - S, u + 1 + S], and it exists because of a time in [u - S - 1, u + 1 + S] (its own
    // end for a left window; for a right window, the time before its start and the next one):
    // only the stored partials within S + 1 of a new time are swept.
    val sink = new Sink(group, out, (start, _) => newTimeWithin(start - 1, start + sizeMicros))
    val reach = sizeMicros + 1
    val from = if (newTimes.head < Long.MinValue + reach) Long.MinValue else newTimes.head - reach
    val to = if (newTimes.last > Long.MaxValue - reach) Long.MaxValue else newTimes.last + reach
    loadGroup(group, from, to)
      .foreach { case (t, p) =>
        if (newTimeWithin(t - sizeMicros - 1, t + sizeMicros + 1)) sweep.add(t, p, sink)
      }
    sweep.finish(sink)
  }

  /** Removes the partials older than watermark - S: no window still open can hold them. */
  private def evict(evictionWatermark: Long): Unit =
    removedStateRows += index.removeBefore(evictionWatermark - sizeMicros)
}
