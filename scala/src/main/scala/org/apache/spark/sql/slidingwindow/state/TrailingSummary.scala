package org.apache.spark.sql.slidingwindow.state

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
 *    ([[TrailingFramesState.sweep]]; Long.MaxValue: none);
 *  - the bounds of the times of the Pending rows waiting ([[WaitingTimes]]), for the idle clock.
 * Its bytes: the time as a zigzag varint, then the count as a varint, then the earliest and the
 * latest waiting times as zigzag varints (absent from a row written before they were kept: not
 * known, the next micro-batch reads every Pending row). A store with no other row has none.
 */
private[slidingwindow] final class TrailingSummary(store: StateStore, layout: TrailingStateLayout) {
  private val rows = layout.rows()
  private var loaded = false
  private var stored = false // the store has the row
  private var storedCount = 0L // the other rows
  private var sweepAt = Long.MaxValue
  private var waitingTimes: Option[WaitingTimes] = Some(WaitingTimes.none)

  /** The rows this micro-batch created and removed so far. */
  var created = 0L
  var removed = 0L
  var rowsRead = 0L

  private def load(): Unit = if (!loaded) {
    loaded = true
    val value = StateStoreApi.get(store, rows.summaryKey, layout.dataFamily)
    if (value != null) {
      rowsRead += 1
      stored = true
      val bytes = value.getBinary(1)
      val in = new CompactReader(bytes, Platform.BYTE_ARRAY_OFFSET)
      sweepAt = in.signed()
      storedCount = in.varint()
      waitingTimes =
        if (in.at < Platform.BYTE_ARRAY_OFFSET + bytes.length) Some(WaitingTimes(in.signed(), in.signed()))
        else None
    }
  }

  /** When the state may first hold a group no later row reaches. */
  def nextSweep: Long = { load(); sweepAt }

  /** A group's frames stop being reachable at `expiry`. */
  def noteExpiry(expiry: Long): Unit = if (expiry < nextSweep) sweepAt = expiry

  /** After a sweep: the next one is due at `next`. */
  def swept(next: Long): Unit = { load(); sweepAt = next }

  /** The bounds of the times of the rows waiting; None: not known. */
  def waiting: Option[WaitingTimes] = { load(); waitingTimes }

  /** Once the micro-batch kept and emitted its rows: the bounds of those waiting. */
  def waiting_=(times: WaitingTimes): Unit = { load(); waitingTimes = Some(times) }

  private def others: Long = { load(); storedCount + created - removed }

  /** The store's rows, this one included once [[save]]d. */
  def rowCount: Long = others + (if (stored) 1 else 0)

  /**
   * Writes the row, or removes it from a store with no other row: before the commit, after every
   * other change. Whether it wrote it.
   */
  def save(): Boolean = {
    if (others == 0) {
      if (stored) StateStoreApi.remove(store, rows.summaryKey, layout.dataFamily)
      stored = false
      false
    } else {
      val out = new CompactWriter
      out.signed(sweepAt)
      out.varint(others)
      val times = waitingTimes.getOrElse(WaitingTimes.none)
      out.signed(times.earliest)
      out.signed(times.latest)
      StateStoreApi.put(store, rows.summaryKey, rows.bytesValue(out.result(0)), layout.dataFamily)
      stored = true
      true
    }
  }
}
