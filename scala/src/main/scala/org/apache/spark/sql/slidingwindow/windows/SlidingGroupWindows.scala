package org.apache.spark.sql.slidingwindow.windows

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, WindowBufferConf}

/**
 * The sliding windows of a group whose rows come sorted by time: rows with the same time are
 * pre-aggregated into one partial, which feeds the [[SlidingWindowSweep]].
 */
final class SlidingGroupWindows(sizeMicros: Long, buffers: AggregateBuffers, bufferConf: WindowBufferConf)
  extends GroupWindows {
  private val sweep = new SlidingWindowSweep(sizeMicros, buffers, bufferConf)
  private val partial: InternalRow = buffers.newBuffer()
  private var partialTime = 0L
  private var partialHasRows = false

  override def add(time: Long, row: InternalRow, sink: WindowSink): Unit = {
    if (!partialHasRows || time != partialTime) {
      if (partialHasRows) sweep.add(partialTime, buffers.freeze(partial), sink)
      buffers.initialize(partial)
      partialTime = time
      partialHasRows = true
    }
    buffers.update(partial, row)
  }

  override def finish(sink: WindowSink): Unit = {
    if (partialHasRows) {
      sweep.add(partialTime, buffers.freeze(partial), sink)
      partialHasRows = false
    }
    sweep.finish(sink)
  }
}
