package org.apache.spark.sql.slidingwindow.windows

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, PartialBuilder, TwoStacks, WindowBufferConf}

/**
 * The sliding windows of a group whose rows come sorted by time: rows with the same time are
 * pre-aggregated into one partial, which feeds the [[SlidingWindowSweep]] once the windows that
 * end before its time are closed (a bounded number per [[closeReady]] call).
 */
final class SlidingGroupWindows(sizeMicros: Long, buffers: AggregateBuffers, bufferConf: WindowBufferConf)
  extends GroupWindows {
  private val sweep = new SlidingWindowSweep(sizeMicros, TwoStacks.inMemory(buffers, bufferConf))
  // The rows of the newest time, being pre-aggregated; and the previous time's, complete, waiting
  // for the windows that end before its time to close. The two builders swap roles.
  private var building = new PartialBuilder(buffers)
  private var buildingTime = 0L
  private var buildingHasRows = false
  private var complete = new PartialBuilder(buffers)
  private var completeTime = 0L
  private var waiting = false
  private var finishing = false

  override def add(time: Long, row: InternalRow, sink: WindowSink): Unit = {
    if (buildingHasRows && time == buildingTime) {
      building.add(row)
    } else {
      if (buildingHasRows) hand()
      building.begin(row)
      buildingTime = time
      buildingHasRows = true
    }
  }

  override def finish(sink: WindowSink): Unit = finishing = true

  override def closeReady(sink: WindowSink, budget: Int): Boolean = {
    if (waiting) {
      if (!sweep.add(completeTime, complete.result, sink, budget)) return true
      waiting = false
      if (finishing) return true // the budget may be spent: the rest in the next call
    }
    if (finishing) {
      if (buildingHasRows) {
        hand()
        buildingHasRows = false
        return true
      }
      if (sweep.closeThrough(Long.MaxValue, sink, budget)) return true
      sweep.reset()
      finishing = false
    }
    false
  }

  /** The building time is complete: it waits for its turn (the caller closes windows first). */
  private def hand(): Unit = {
    assert(!waiting, "a complete time is already waiting")
    val b = complete
    complete = building
    building = b
    completeTime = buildingTime
    waiting = true
  }
}
