package org.apache.spark.sql.slidingwindow.windows

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, WindowBufferConf}

/**
 * The sliding windows of a group whose rows come sorted by time: rows with the same time are
 * pre-aggregated into one partial, which feeds the [[SlidingWindowSweep]] once the windows that
 * end before its time are closed (a bounded number per [[closeReady]] call).
 */
final class SlidingGroupWindows(sizeMicros: Long, buffers: AggregateBuffers, bufferConf: WindowBufferConf)
  extends GroupWindows {
  private val sweep = new SlidingWindowSweep(sizeMicros, buffers, bufferConf)
  // The rows of the newest time, being pre-aggregated.
  private val partial: InternalRow = buffers.newBuffer()
  private var partialTime = 0L
  private var partialHasRows = false
  // A complete time waiting for the windows that end before it to close.
  private var waiting: InternalRow = _
  private var waitingTime = 0L
  private var finishing = false

  override def add(time: Long, row: InternalRow, sink: WindowSink): Unit = {
    if (!partialHasRows || time != partialTime) {
      if (partialHasRows) wait(partialTime, buffers.freeze(partial))
      buffers.initialize(partial)
      partialTime = time
      partialHasRows = true
    }
    buffers.update(partial, row)
  }

  override def finish(sink: WindowSink): Unit = finishing = true

  override def closeReady(sink: WindowSink, budget: Int): Boolean = {
    if (waiting != null) {
      if (sweep.closeThrough(waitingTime - 1, sink, budget)) return true
      sweep.push(waitingTime, waiting)
      waiting = null
    }
    if (finishing) {
      if (partialHasRows) {
        wait(partialTime, buffers.freeze(partial))
        partialHasRows = false
        return true
      }
      if (sweep.closeThrough(Long.MaxValue, sink, budget)) return true
      sweep.reset()
      finishing = false
    }
    false
  }

  private def wait(time: Long, frozen: InternalRow): Unit = {
    waiting = frozen
    waitingTime = time
  }
}
