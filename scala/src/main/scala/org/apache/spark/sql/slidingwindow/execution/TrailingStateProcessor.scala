package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, JoinedRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.slidingwindow.state.StateStoreApi

/**
 * One micro-batch of one partition of streaming trailing windows, over the state of its format
 * version, chosen once from the query's checkpoint: [[TrailingRowsProcessor]] (format 1) or
 * [[TrailingFramesProcessor]] (format 2). [[process]] keeps the input rows and returns the rows
 * emitted, with their windows; [[finish]], once they are all read, leaves the state as the next
 * micro-batch needs it.
 */
trait TrailingStateProcessor {
  def process(input: Iterator[InternalRow]): Iterator[InternalRow]
  def finish(): Unit

  def droppedLateRows: Long
  def rowsWritten: Long
  def rowsRemoved: Long
  def rowsRead: Long

  /** The store's rows, where the operator counts them (state format 2), once [[finish]]ed. */
  def rowCount: Option[Long] = None
}

object TrailingStateProcessor {
  /**
   * Keeps the input rows as state rows, but for those without a time (left out) and those at or
   * before the watermark for late rows (dropped): `keyOf` is over the input row followed by its
   * `__seq`, the micro-batch id in the high 32 bits and the row's place in the task's input in
   * the low ones, so that a micro-batch run again writes the same keys. Returns the rows dropped
   * and the rows written.
   */
  def keep(input: Iterator[InternalRow], store: StateStore, family: String, keyOf: UnsafeProjection,
      valueOf: InternalRow => UnsafeRow, timeOrdinal: Int, batchId: Long, lateMicros: Long): (Long, Long) = {
    val seq = new GenericInternalRow(1)
    val withSeq = new JoinedRow
    var index = 0L
    var dropped = 0L
    var written = 0L
    input.foreach { row =>
      seq.setLong(0, (batchId << 32) | (index & 0xffffffffL))
      index += 1
      val key = keyOf(withSeq(row, seq))
      if (!key.isNullAt(timeOrdinal)) {
        if (key.getLong(timeOrdinal) <= lateMicros) dropped += 1
        else {
          StateStoreApi.put(store, key, valueOf(row), family)
          written += 1
        }
      }
    }
    (dropped, written)
  }
}
