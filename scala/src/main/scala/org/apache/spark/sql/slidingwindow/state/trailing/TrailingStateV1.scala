package org.apache.spark.sql.slidingwindow.state
package trailing

import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * Trailing windows' state format 1 (unreleased: its number is fixed when a release ships it):
 * the rows waiting in parts per group and second ([[PendingParts]]), each group's frames in a
 * Frames row with Chunk rows for their stacks' older elements ([[FramesRows]]), with a time index
 * of when each group expires in the time index arrangement, and the Summary
 * row ([[TrailingSummary]]), which counts the store's rows so that the stores need not (Spark's
 * RocksDB provider reads every key before it writes or deletes it to count them), and bounds the
 * times of the rows waiting ([[WaitingTimes]]), so that the idle clock knows when one is next
 * due without reading them.
 */
private[trailing] final class TrailingStateV1(store: StateStore, layout: TrailingStateLayout,
    arrangement: StateArrangement, lateMicros: Long, evictionMicros: Long, limits: PendingLimits, verify: Boolean)
  extends TrailingState(store, layout) {

  private val summary = new TrailingSummary(store, layout, counters)
  override val pending: PendingParts = new PendingParts(store, layout, counters, lateMicros, evictionMicros, limits)
  private val index = if (arrangement.timeIndex) Some(new TimeIndex(store, layout.indexKeySchema, counters)) else None
  override val frames: FramesRows = new FramesRows(store, layout, counters, summary, index)

  override def metrics: StateMetrics = counters.snapshot(Some(summary.rowCount))

  /**
   * The bounds of the times of the rows waiting once this micro-batch's are kept and emitted:
   * those it kept or read and left waiting, and those of the rows it did not read.
   */
  private def waiting: WaitingTimes =
    pending.waitingRead.union(summary.waiting.notRead(evictionMicros, pending.notReadFrom))

  override def nextDue: Long = waiting.earliest

  override def commit(): Unit = {
    summary.waiting = waiting
    summary.save()
    store.commit()
    if (verify) OperatorState.checkRowCount(store, summary.rowCount, summary.rowCount.toString)
  }
}
