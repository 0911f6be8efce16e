package org.apache.spark.sql.slidingwindow.stored

import org.apache.spark.sql.slidingwindow.state.sliding.RowCursor
import org.apache.spark.sql.slidingwindow.windows.Starts

/**
 * The starts of the right windows of a group's times that earlier micro-batches pushed, read
 * lazily from its stored Partial rows in ascending time, as the windows close: the right window
 * of t, [t + 1, t + 1 + S], exists when the next time u has u <= t + 1 + S. The last time pushed
 * is left out: its next time is not pushed yet (the sweep decides it when it is).
 *
 * Rows older than `expiresBefore` are no longer needed once this micro-batch is done; those read
 * are handed to `expired` (every one of them is read: their right windows end by the watermark).
 */
final class StoredRightStarts(
    rows: RowCursor,
    sizeMicros: Long,
    expiresBefore: Long,
    expired: Long => Unit) extends Starts {

  private var current = 0L // the time whose right window is examined next
  private var hasCurrent = false
  private var started = false
  private var start = 0L
  private var known = false // `start` holds the next start
  private var done = false

  private def read(): Boolean = {
    val found = rows.next()
    if (found && rows.time < expiresBefore) expired(rows.time)
    found
  }

  private def find(): Unit = {
    if (!started) {
      started = true
      hasCurrent = read()
      if (hasCurrent) current = rows.time
    }
    while (!known && !done) {
      if (!hasCurrent || !read()) {
        done = true
      } else {
        val next = rows.time
        if (next - current - 1 <= sizeMicros) {
          start = current + 1
          known = true
        }
        current = next
      }
    }
  }

  override def isEmpty: Boolean = { find(); !known }
  override def head: Long = { find(); if (!known) throw new NoSuchElementException; start }
  override def removeHead(): Long = { val s = head; known = false; s }
}
