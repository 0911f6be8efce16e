package org.apache.spark.sql.slidingwindow.execution

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.state.sliding.StateRowKind.Partial
import org.apache.spark.sql.slidingwindow.windows.StreamTimeWindows

/**
 * Batch windows (docs/contract.md, "Batch windows") in one micro-batch of one partition. The state
 * holds, per group, only its open window: a Partial row under the window's start, with the group's
 * stream time.
 *
 *  1. windows that the eviction watermark (this batch's) closed, end <= watermark, are found
 *     through the time index (each window is scheduled at its end): emitted in append mode
 *     (update mode emitted them when they changed), and removed. A group without a stored window
 *     lost nothing: its next stream time is at least the watermark, which is past the old one;
 *  2. rows, per group in the order they are sorted in (time, or the `order` column): the group's
 *     window and stream time are resumed from the state and its stream time is moved to the
 *     watermark, then the rows are applied by the same [[StreamTimeWindows]] as in batch queries.
 *     A window that stream time leaves is emitted in append mode; in update mode every window that
 *     received rows in this batch is emitted, the open one included. No row is ever dropped.
 */
final class BatchWindowsProcessor(context: StreamingWindowsContext)
  extends StreamingWindowsProcessor(context) {
  import context._

  private val groupRows = state.rows
  private val timers = state.timers
  private val windows = new StreamTimeWindows(sizeMicros, buffers)

  private var input: Iterator[InternalRow] = _
  private var closing: Iterator[UnsafeRow] = _ // groups due under the watermark
  private var groupsIn: Iterator[(UnsafeRow, Iterator[InternalRow])] = _ // after the closing
  private var work: StepWork = _ // a group under way

  override protected def begin(rows: Iterator[InternalRow]): Unit = input = rows

  /**
   * One step: a step of the group under way, or the start of the next group, first those that
   * the watermark closes, then those with rows. Every step closes at most one window: a row
   * closes at most one ([[StreamTimeWindows]]).
   */
  override protected def step(): Boolean = {
    if (work != null) {
      if (!work.step()) work = null
    } else if (closing == null) {
      closing = timers.due()
    } else if (closing.hasNext) {
      val group = closing.next()
      state.open(group)
      // State format 2's entry in the time index may be earlier than the group's window end.
      if (timers.stillDue) work = new ClosingWindows(group, evictionWatermarkMicros.get)
      else state.close()
    } else if (groupsIn == null) {
      groupsIn = groups(input, dropLate = false) // batch windows never drop a row
    } else if (groupsIn.hasNext) {
      val (group, rows) = groupsIn.next()
      state.open(group)
      work = new GroupRows(group, rows)
    } else {
      return false
    }
    true
  }

  /** Emits (append mode) and removes a group's stored windows that end at or before the watermark. */
  private final class ClosingWindows(group: UnsafeRow, watermark: Long) extends StepWork {
    private val sink = new Sink(group, (_, _) => true)
    private val closed = mutable.ArrayBuffer.empty[Long]
    private val rows = groupRows.rows(group, Partial, Long.MinValue, watermark - sizeMicros)

    override def step(): Boolean =
      try {
        if (rows.next()) {
          closed += rows.time
          if (appendMode) {
            windows.resume(codec.streamTime(rows.value), rows.time, codec.buffer(rows.value))
            windows.finish(sink)
          }
          true
        } else {
          rows.close()
          closed.foreach(groupRows.remove(group, Partial, _))
          state.close()
          false
        }
      } catch {
        case e: Throwable => rows.close(); throw e
      }
  }

  /**
   * A group's rows, one per step: its open window and stream time are resumed from the state and
   * stream time is moved to the watermark, then the rows are applied, then the open window is
   * stored back.
   */
  private final class GroupRows(group: UnsafeRow, rows: Iterator[InternalRow]) extends StepWork {
    private val sink = new Sink(group, (_, _) => appendMode || windows.changed)
    private val stored = resume(group)
    private var started = false

    override def step(): Boolean = {
      if (!started) {
        started = true
        evictionWatermarkMicros.foreach(windows.advance(_, sink))
        sink.byWatermark = false // from here, windows that the group's own rows close
        true
      } else if (rows.hasNext) {
        val row = rows.next()
        windows.add(row.getLong(timeOrdinal), row, sink)
        true
      } else {
        save(group, stored, sink)
        state.close()
        false
      }
    }
  }

  /** Loads a group's open window and stream time; returns the window's start, if it has one. */
  private def resume(group: UnsafeRow): Option[Long] = {
    val rows = groupRows.rows(group, Partial, Long.MinValue, Long.MaxValue)
    try {
      if (rows.next()) {
        windows.resume(codec.streamTime(rows.value), rows.time, codec.buffer(rows.value))
        Some(rows.time)
      } else {
        windows.reset()
        None
      }
    } finally rows.close()
  }

  /** Stores a group's open window and stream time, in place of the window it had. */
  private def save(group: UnsafeRow, stored: Option[Long], sink: Sink): Unit = {
    if (!appendMode) windows.current(sink)
    val start = windows.openStart.get // the group received a row, so a window is open
    stored.filter(_ != start).foreach { old => // stream time left it: it was emitted
      groupRows.remove(group, Partial, old)
      timers.unschedule(old + sizeMicros, group)
    }
    val value = codec.windowValue(buffers.freeze(windows.openAggregate), windows.streamTime.get)
    if (stored.contains(start)) {
      groupRows.put(group, Partial, start, value)
    } else {
      groupRows.insert(group, Partial, start, value)
      timers.schedule(start + sizeMicros, group)
    }
  }
}
