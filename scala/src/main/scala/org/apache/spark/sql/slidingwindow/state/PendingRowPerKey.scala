package org.apache.spark.sql.slidingwindow.state

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, GenericInternalRow, JoinedRow, UnsafeProjection, UnsafeRow}
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
   * Keeps the input rows as state rows, one each (state formats 1 and 2), but for those without
   * a time (left out) and those at or before the watermark for late rows (dropped): `keyOf` is
   * over the input row followed by its `__seq`, the micro-batch id in the high 32 bits and the
   * row's place in the task's input in the low ones, so that a micro-batch run again writes the
   * same keys. Returns the rows dropped and the rows written.
   */
  def keep(input: Iterator[InternalRow], store: StateStore, family: String, keyOf: UnsafeProjection,
      valueOf: InternalRow => UnsafeRow, timeOrdinal: Int, batchId: Long, lateMicros: Long): (Long, Long) = {
    val seq = new GenericInternalRow(1)
    val withSeq = new JoinedRow
    var index = 0L
    var dropped = 0L
    var written = 0L
    input.foreach { row =>
      seq.setLong(0, PendingRowPerKey.seq(batchId, index))
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

  /** The `__seq` of the `index`th input row of a task in micro-batch `batchId`. */
  def seq(batchId: Long, index: Long): Long = (batchId << 32) | (index & 0xffffffffL)
}
