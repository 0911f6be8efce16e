package org.apache.spark.sql.slidingwindow.windows

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, AggregateParts, WindowContents}
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.expressions.WindowKind

/**
 * The batch windows of one group (docs/contract.md, "Batch windows"): each row goes to the tumbling
 * window of size S that holds the group's stream time when the row arrives,
 * `[floor(st / S) * S, + S)`, where the stream time st is the largest time observed so far (row
 * times, and the watermark of a micro-batch). Stream time never goes back, so a group has at
 * most one open window, and once stream time leaves it, it is final.
 *
 * Rows are applied in the order they are added: by time, by an `order` column, or in arrival
 * order across micro-batches. A stream keeps the open window and the stream time in its state
 * between micro-batches ([[resume]]).
 */
final class StreamTimeWindows(sizeMicros: Long, buffers: AggregateBuffers)
  extends GroupWindows with WindowContents {

  private val buffer: InternalRow = buffers.newBuffer()
  private var timeKnown = false
  private var time = 0L
  private var open = false
  private var start = 0L
  private var rowsAdded = false

  /** The group's stream time, if it has observed any. */
  def streamTime: Option[Long] = if (timeKnown) Some(time) else None

  /** The start of the open window, if there is one. */
  def openStart: Option[Long] = if (open) Some(start) else None

  /** Whether the open window received rows since it opened or was resumed. */
  def changed: Boolean = rowsAdded

  /** The working buffer of the open window. */
  def openAggregate: InternalRow = buffer

  override def aggregate(parts: AggregateParts): Unit = parts.set(null, buffer)

  /** Forgets the group: no stream time, no open window. */
  def reset(): Unit = {
    timeKnown = false
    open = false
    rowsAdded = false
  }

  /** Continues a group whose stream time and open window (its frozen partial) were stored. */
  def resume(streamTime: Long, windowStart: Long, partial: InternalRow): Unit = {
    reset()
    timeKnown = true
    time = streamTime
    open = true
    start = windowStart
    buffers.initialize(buffer)
    buffers.merge(buffer, partial)
  }

  /** Observes time `t`: stream time becomes max(stream time, t); a window it leaves closes. */
  def advance(t: Long, sink: WindowSink): Unit = {
    if (!timeKnown || t > time) {
      time = t
      timeKnown = true
    }
    if (open && windowStartOf(time) != start) close(sink)
  }

  override def add(t: Long, row: InternalRow, sink: WindowSink): Unit = {
    advance(t, sink)
    if (!open) {
      start = windowStartOf(time)
      open = true
      buffers.initialize(buffer)
    }
    buffers.update(buffer, row)
    rowsAdded = true
  }

  /** Shows the open window to `sink` without closing it. */
  def current(sink: WindowSink): Unit = if (open) sink.window(start, start + sizeMicros, this)

  override def finish(sink: WindowSink): Unit = {
    if (open) close(sink)
    reset()
  }

  /** Windows close as soon as they are known (at most one per row): nothing is ever waiting. */
  override def closeReady(sink: WindowSink, budget: Int): Boolean = false

  private def close(sink: WindowSink): Unit = {
    sink.window(start, start + sizeMicros, this)
    open = false
    rowsAdded = false
  }

  /** floor(st / S) * S, or an error when the window's bounds do not fit in 64 bits. */
  private def windowStartOf(streamTime: Long): Long =
    try {
      val first = Math.multiplyExact(Math.floorDiv(streamTime, sizeMicros), sizeMicros)
      Math.addExact(first, sizeMicros)
      first
    } catch {
      case _: ArithmeticException =>
        throw WindowErrors.boundsOverflow(WindowKind.Batch.functionName, streamTime, sizeMicros)
    }
}
