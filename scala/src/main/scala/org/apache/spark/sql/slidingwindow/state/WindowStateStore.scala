package org.apache.spark.sql.slidingwindow.state

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.{RocksDBStateStoreProvider, StateStore}
import org.apache.spark.sql.internal.SQLConf

/**
 * A partition's state store as a streaming windowed aggregation uses it ([[WindowStateLayout]]):
 * a group's rows by kind and time, and when each group must be visited again.
 *
 * Reads and writes are counted ([[rowsRead]], [[rowsWritten]]): a micro-batch's state work is in
 * proportion to its input and output, not to the state it keeps, and these counts show it.
 *
 * Two implementations: [[IndexedWindowStateStore]] (RocksDB) and [[ScanningWindowStateStore]].
 */
abstract class WindowStateStore private[state] (val store: StateStore, val layout: WindowStateLayout) {
  val codec: WindowStateCodec = layout.codec()

  var rowsRead = 0L
  var rowsWritten = 0L
  var rowsRemoved = 0L

  /** The value of a row, or null. Valid until the next read. */
  def get(group: InternalRow, kind: StateRowKind, time: Long): UnsafeRow = {
    val value = StateStoreApi.get(store, codec.key(group, kind, time), layout.dataFamily)
    if (value != null) rowsRead += 1
    value
  }

  def put(group: InternalRow, kind: StateRowKind, time: Long, value: UnsafeRow): Unit = {
    StateStoreApi.put(store, codec.key(group, kind, time), value, layout.dataFamily)
    rowsWritten += 1
  }

  def remove(group: InternalRow, kind: StateRowKind, time: Long): Unit = {
    StateStoreApi.remove(store, codec.key(group, kind, time), layout.dataFamily)
    rowsRemoved += 1
  }

  /** A group's rows of `kind` with `from <= time <= to`, in ascending time. */
  def rows(group: InternalRow, kind: StateRowKind, from: Long, to: Long): RowCursor

  /** [[rows]] without ordered scans: every row of the group and kind is read, and sorted. */
  protected final def scanRows(group: InternalRow, kind: StateRowKind, from: Long, to: Long): RowCursor = {
    val found = mutable.ArrayBuffer.empty[(Long, UnsafeRow)]
    val iter = StateStoreApi.prefixScan(store, codec.prefix(group, kind), layout.dataFamily)
    try iter.foreach { pair =>
      val t = codec.timeOfKey(pair.key)
      if (t >= from && t <= to) found += ((t, pair.value.copy()))
    } finally iter.close()
    rowsRead += found.length
    RowCursor.of(found.sortBy(_._1).iterator)
  }

  /** The group must be visited once the watermark reaches `time`. */
  def schedule(time: Long, group: InternalRow): Unit

  /** Takes back a [[schedule]] that is no longer needed. */
  def unschedule(time: Long, group: InternalRow): Unit

  /**
   * The groups to visit under `watermark`, each once, read as they are pulled; their schedule
   * entries are consumed. A visit may schedule the group again, always later than `watermark`.
   */
  def due(watermark: Long): Iterator[UnsafeRow]
}

object WindowStateStore {
  val rocksDbProvider: String = classOf[RocksDBStateStoreProvider].getName

  /**
   * Whether the state has a time index: RocksDB keeps a time-ordered index in a column family
   * (Spark 4; Spark 3.5 has no column families); other providers scan.
   */
  def hasTimeIndex(conf: SQLConf): Boolean =
    conf.getConf(SQLConf.STATE_STORE_PROVIDER_CLASS) == rocksDbProvider && StateStoreApi.hasColumnFamilies

  /**
   * Whether a group's rows are kept ordered by time, for range scans: with a time index, on a
   * Spark that has ordered range scans (4.2 and later).
   */
  def hasOrderedRows(conf: SQLConf): Boolean = hasTimeIndex(conf) && OrderedRangeScan.supported

  def apply(store: StateStore, layout: WindowStateLayout, hasTimeIndex: Boolean, orderedRows: Boolean)
      : WindowStateStore =
    if (hasTimeIndex) new IndexedWindowStateStore(store, layout, orderedRows)
    else new ScanningWindowStateStore(store, layout)
}
