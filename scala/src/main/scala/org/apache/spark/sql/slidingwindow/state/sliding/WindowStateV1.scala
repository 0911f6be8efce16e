package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * State format 1 (release 0.1.0): every row of a group is a state row of its own
 * ([[KeyedRows]]), and every visit scheduled an entry of the time index, or without one, every
 * group is due ([[EntryTimers]]). Groups need not be opened: [[open]] and [[close]] do nothing.
 */
private[state] final class WindowStateV1(store: StateStore, layout: WindowStateLayout,
    arrangement: StateArrangement, watermark: Option[Long]) extends WindowState(store, layout) {

  override val rows: GroupRows = new KeyedRows(store, layout, codec, counters, arrangement.orderedRows)
  override val timers: VisitTimers =
    if (arrangement.timeIndex) new TimeIndexTimers(store, layout, counters, watermark)
    else new EveryGroupTimers(store, layout, codec, watermark)

  override def open(group: UnsafeRow): Unit = ()
  override def close(): Unit = ()
  override def resweepable: Boolean = false
  override def flipsRemovePartials: Boolean = false
  override def claimsVisitsAtIngestion: Boolean = false
  override def metrics: StateMetrics = counters.snapshot(None)
  override def commit(): Unit = store.commit()
}
