package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, JoinedRow, SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.types.LongType

/**
 * The input rows of streaming trailing windows that wait for the watermark: the Pending rows of
 * state formats 2 and 3 ([[TrailingFramesLayout]]), in buckets of a second of their time. In a
 * micro-batch, [[keep]] writes the input rows, but for those at or before the watermark for late
 * rows (dropped, counted) and those without a time; [[readDue]] reads the rows at or before the
 * eviction watermark; [[finish]], once they are emitted, removes them.
 *
 * Every row waiting is after the watermark for late rows, the eviction watermark of the
 * micro-batch before, so the rows due are in the buckets from its one to the eviction
 * watermark's: a prefix scan of each reads them, unless the watermark jumped over more buckets
 * than a scan of the whole store costs ([[PendingRows.MaxBucketScans]]).
 *
 * One class per state format: [[PendingRowPerKey]] (2), [[PendingParts]] (3).
 */
private[slidingwindow] abstract class PendingRows(store: StateStore, layout: TrailingFramesLayout,
    lateMicros: Long, evictionMicros: Long) {
  import TrailingFramesLayout._

  protected val rows: TrailingFramesLayout.Rows = layout.rows()
  protected val family: String = layout.dataFamily

  var droppedLateRows = 0L
  /** State rows put (new or written again). */
  var rowsWritten = 0L
  /** State rows put under a new key: the store's row count grows by [[rowsCreated]] - [[rowsRemoved]]. */
  var rowsCreated = 0L
  var rowsRemoved = 0L
  var rowsRead = 0L

  /** Keeps a micro-batch's input rows; `time` is the ORDER BY expression, bound to them. */
  def keep(input: Iterator[InternalRow], time: Expression, batchId: Long): Unit

  /** Gives `due` every row due, in no order; the eviction watermark is after the late rows' one. */
  def readDue(due: PendingRows.Due): Unit

  /** Removes the rows [[readDue]] gave, once they are emitted. */
  def finish(): Unit

  /** Each Pending state row (key, value) of the buckets that hold the rows due. */
  protected def scanDue(visit: (UnsafeRow, UnsafeRow) => Unit): Unit = {
    val (first, last) = (bucketOf(lateMicros), bucketOf(evictionMicros))
    if (lateMicros != Long.MinValue && last - first < PendingRows.MaxBucketScans) {
      var b = first
      while (b <= last) {
        val pending = StateStoreApi.prefixScan(store, rows.kindPrefix(Pending, b), family)
        try pending.foreach(pair => visit(pair.key, pair.value)) finally pending.close()
        b += 1
      }
    } else {
      val all = StateStoreApi.iterator(store, family)
      try all.foreach { pair =>
        if (pair.key.getInt(0) == Pending) visit(pair.key, pair.value)
      } finally all.close()
    }
  }
}

private[slidingwindow] object PendingRows {
  /** Takes a row due. */
  trait Due {
    /**
     * @param key  the key of its state row, whose partition key columns are the row's group
     *             (valid during the call)
     * @param time its time, microseconds
     * @param seq  its `__seq`: rows of one group and time are emitted in its order
     * @param row  the input row, valid until [[PendingRows.finish]]
     */
    def apply(key: UnsafeRow, time: Long, seq: Long, row: InternalRow): Unit
  }

  /** The most buckets of Pending rows a micro-batch scans one by one, rather than the whole store. */
  val MaxBucketScans = 4096L

  /**
   * Gives `kept` each input row to keep with its key (`keyOf` over the input row followed by its
   * `__seq`, [[seq]]), but for those without a time (left out) and those at or before the
   * watermark for late rows (dropped); returns the rows dropped. The key is the projection's
   * reused row.
   */
  def eachKept(input: Iterator[InternalRow], keyOf: UnsafeProjection, timeOrdinal: Int, batchId: Long,
      lateMicros: Long)(kept: (InternalRow, UnsafeRow) => Unit): Long = {
    val seqRow = new SpecificInternalRow(Seq(LongType)) // a long field: setLong does not box
    val withSeq = new JoinedRow
    var index = 0L
    var dropped = 0L
    input.foreach { row =>
      seqRow.setLong(0, seq(batchId, index))
      index += 1
      val key = keyOf(withSeq(row, seqRow))
      if (!key.isNullAt(timeOrdinal)) {
        if (key.getLong(timeOrdinal) <= lateMicros) dropped += 1
        else kept(row, key)
      }
    }
    dropped
  }

  /**
   * The `__seq` of the `index`th input row of a task in micro-batch `batchId`: the micro-batch id
   * in the high 32 bits, the index in the low ones, so that a micro-batch run again writes the
   * same keys.
   */
  def seq(batchId: Long, index: Long): Long = (batchId << 32) | (index & 0xffffffffL)
}
