package org.apache.spark.sql.slidingwindow.state

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * The Pending rows of state format 2: one state row per input row, at (time, seq) in the bucket of
 * its time, the row in `__row`. A micro-batch writes each input row, and removes each once
 * emitted.
 */
private[slidingwindow] final class PendingRowPerKey(store: StateStore, layout: TrailingFramesLayout,
    lateMicros: Long, evictionMicros: Long) extends PendingRows(store, layout, lateMicros, evictionMicros) {
  private val emitted = mutable.ArrayBuffer.empty[UnsafeRow]

  override def keep(input: Iterator[InternalRow], time: Expression, batchId: Long): Unit = {
    val toValue = layout.valueOfInput()
    val (dropped, written) = PendingRowPerKey.keep(input, store, family, layout.keyOfInput(time),
      toValue(_), layout.timeOrdinal, batchId, lateMicros)
    droppedLateRows += dropped
    rowsWritten += written
    rowsCreated += written
  }

  override def readDue(due: PendingRows.Due): Unit = scanDue { (key, value) =>
    rowsRead += 1
    val t = key.getLong(layout.timeOrdinal)
    if (t <= evictionMicros) {
      due(key, t, key.getLong(layout.seqOrdinal), value.getStruct(0, layout.numInputFields).copy())
      emitted += key.copy()
    }
  }

  override def finish(): Unit = {
    emitted.foreach(key => StateStoreApi.remove(store, key, family))
    rowsRemoved += emitted.length
    emitted.clear()
  }
}

private[slidingwindow] object PendingRowPerKey {
  /**
   * Keeps the input rows as state rows, one each under `keyOf` (state formats 1 and 2), but for
   * those without a time and those at or before the watermark for late rows
   * ([[PendingRows.eachKept]]). Returns the rows dropped and the rows written.
   */
  def keep(input: Iterator[InternalRow], store: StateStore, family: String, keyOf: UnsafeProjection,
      valueOf: InternalRow => UnsafeRow, timeOrdinal: Int, batchId: Long, lateMicros: Long): (Long, Long) = {
    var written = 0L
    val dropped = PendingRows.eachKept(input, keyOf, timeOrdinal, batchId, lateMicros) { (row, key) =>
      StateStoreApi.put(store, key, valueOf(row), family)
      written += 1
    }
    (dropped, written)
  }
}
