package org.apache.spark.sql.slidingwindow.state
package trailing

import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.unsafe.Platform

/**
 * The Summary row of streaming trailing windows' state ([[TrailingStateLayout]]), one
 * per partition's store that holds other rows, written by every micro-batch:
 *  - the number of the other state rows of the store, counted by the operator as it
 *    creates and removes rows: so that Spark's RocksDB provider need not read every key before it
 *    writes or deletes it to count them (`trackTotalNumberOfRows`), the operator reports this
 *    count as `numRowsTotal` on Spark 4;
 *  - when the state may first hold a group whose frames no later row reaches
 *    ([[FramesRows.expire]]; Long.MaxValue: none);
 *  - the bounds of the times of the Pending rows waiting ([[WaitingTimes]]), for the idle clock.
 * Its bytes: the time as a zigzag varint, then the count as a varint, then the earliest and the
 * latest waiting times as zigzag varints. A store with no other row has none.
 */
private[trailing] final class TrailingSummary(store: StateStore, layout: TrailingStateLayout,
    counters: StateCounters) {
  private val rows = layout.rows()
  private var loaded = false
  private var stored = false // the store has the row
  private var storedCount = 0L // the other rows
  private var sweepAt = Long.MaxValue
  private var waitingTimes = WaitingTimes.none

  private def load(): Unit = if (!loaded) {
    loaded = true
    val value = StateStoreApi.get(store, rows.summaryKey, layout.dataFamily)
    if (value != null) {
      counters.read += 1
      stored = true
      val in = new CompactReader(rows.bytesOf(value), Platform.BYTE_ARRAY_OFFSET)
      sweepAt = in.signed()
      storedCount = in.varint()
      waitingTimes = WaitingTimes(in.signed(), in.signed())
    }
  }

  /** When the state may first hold a group no later row reaches. */
  def nextSweep: Long = { load(); sweepAt }

  /** A group's frames stop being reachable at `expiry`. */
  def noteExpiry(expiry: Long): Unit = if (expiry < nextSweep) sweepAt = expiry

  /** After a sweep: the next one is due at `next`. */
  def swept(next: Long): Unit = { load(); sweepAt = next }

  // The rows but this one: those the version read held, with this micro-batch's changes (the
  // ledger's, this row's own counted apart).
  private var ownCreated = 0L
  private var ownRemoved = 0L
  private def others: Long = { load(); storedCount + counters.created - ownCreated - counters.removed + ownRemoved }

  /** The bounds of the times of the rows waiting. */
  def waiting: WaitingTimes = { load(); waitingTimes }

  /** Once the micro-batch kept and emitted its rows: the bounds of those waiting. */
  def waiting_=(times: WaitingTimes): Unit = { load(); waitingTimes = times }


  /** The store's rows, this one included (it is kept where there is any other). */
  def rowCount: Long = if (others == 0) 0L else others + 1

  /**
   * Writes the row, or removes it from a store with no other row: before the commit, after every
   * other change.
   */
  def save(): Unit = {
    val count = others
    if (count == 0) {
      if (stored) {
        StateStoreApi.remove(store, rows.summaryKey, layout.dataFamily)
        counters.removed += 1
        ownRemoved += 1
      }
      stored = false
    } else {
      val out = new CompactWriter
      out.signed(sweepAt)
      out.varint(count)
      out.signed(waitingTimes.earliest)
      out.signed(waitingTimes.latest)
      StateStoreApi.put(store, rows.summaryKey, rows.bytesValue(out.result(0)), layout.dataFamily)
      counters.written += 1
      if (!stored) {
        counters.created += 1
        ownCreated += 1
      }
      stored = true
    }
  }
}
