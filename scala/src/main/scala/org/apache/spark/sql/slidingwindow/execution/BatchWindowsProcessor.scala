package org.apache.spark.sql.slidingwindow.execution

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.windows.StreamTimeWindows

/**
 * Batch windows (SPEC section 3) in one micro-batch of one partition. The state holds, per group,
 * only its open window (frozen partial, under its start) and its stream time.
 *
 *  1. windows that the eviction watermark (this batch's) closed, end <= watermark, found through
 *     the time index: emitted in append mode (update mode emitted them when they changed), and
 *     removed. A group without a stored window lost nothing: its next stream time is at least the
 *     watermark, which is past the old one;
 *  2. rows, per group in the order they are sorted in (time, or the `order` column): the group's
 *     window and stream time are resumed from the state and its stream time is moved to the
 *     watermark, then the rows are applied by the same [[StreamTimeWindows]] as in batch queries.
 *     A window that stream time leaves is emitted in append mode; in update mode every window that
 *     received rows in this batch is emitted, the open one included. No row is ever dropped.
 */
final class BatchWindowsProcessor(context: StreamingWindowsContext)
  extends StreamingWindowsProcessor(context) {
  import context._

  private val groupOfInput = layout.groupOfInput(inputAttributes)
  private val dataKeyOf = layout.dataKeyOfGroup()
  private val valueOf = layout.valueWithStreamTime()
  private val windows = new StreamTimeWindows(sizeMicros, buffers)

  override def process(input: Iterator[InternalRow]): Seq[InternalRow] = {
    val out = new mutable.ArrayBuffer[InternalRow]
    evictionWatermarkMicros.foreach(closeByWatermark(_, out))
    var group: UnsafeRow = null
    var stored: Option[Long] = None
    var sink: Sink = null
    input.foreach { row =>
      if (!row.isNullAt(timeOrdinal)) {
        val g = groupOfInput(row)
        if (group == null || g != group) {
          if (group != null) save(group, stored, sink)
          group = g.copy()
          stored = resume(group)
          sink = new Sink(group, out, (_, _) => appendMode || windows.changed)
          evictionWatermarkMicros.foreach(windows.advance(_, sink))
        }
        windows.add(row.getLong(timeOrdinal), row, sink)
      }
    }
    if (group != null) save(group, stored, sink)
    out.toSeq
  }

  /** Append mode: emits the stored windows that end at or before the watermark. Removes them. */
  private def closeByWatermark(watermark: Long, out: mutable.ArrayBuffer[InternalRow]): Unit = {
    val lastStart = watermark - sizeMicros
    if (appendMode) {
      index.groupsUpTo(lastStart).foreach { group =>
        val sink = new Sink(group, out, (_, _) => true)
        loadGroup(group).foreach { case (start, value) =>
          if (start <= lastStart) {
            windows.resume(value.getLong(layout.streamTimeOrdinal), start, value)
            windows.finish(sink)
          }
        }
      }
    }
    removedStateRows += index.removeBefore(lastStart + 1)
  }

  /** Loads a group's open window and stream time; returns the window's start, if it has one. */
  private def resume(group: UnsafeRow): Option[Long] =
    loadGroup(group).headOption match {
      case Some((start, value)) =>
        windows.resume(value.getLong(layout.streamTimeOrdinal), start, value)
        Some(start)
      case None =>
        windows.reset()
        None
    }

  /** Stores a group's open window and stream time, in place of the window it had. */
  private def save(group: UnsafeRow, stored: Option[Long], sink: Sink): Unit = {
    if (!appendMode) windows.current(sink)
    val start = windows.openStart.get // the group received a row, so a window is open
    stored.filter(_ != start).foreach { old =>
      val oldKey = dataKeyOf(group, old).copy()
      index.removed(oldKey)
      context.store.remove(oldKey, layout.dataFamily)
      removedStateRows += 1
    }
    val key = dataKeyOf(group, start).copy()
    if (!stored.contains(start)) index.added(key)
    val value = valueOf(buffers.freeze(windows.openAggregate), windows.streamTime.get)
    context.store.put(key, value, layout.dataFamily)
    updatedStateRows += 1
  }
}
