package org.apache.spark.sql.slidingwindow.state
package sliding

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * Rows of their own, each a state row keyed (group, kind, time) ([[WindowStateLayout]]): every row
 * of state format 1, and in state format 2 the rows of groups too large for their record. A
 * group's rows of a kind are read by range scan where they are kept ordered by time
 * (`orderedRows`: RocksDB on Spark 4.2 and later), else by prefix scan, then sorted.
 */
private[state] final class KeyedRows(
    store: StateStore,
    layout: WindowStateLayout,
    codec: WindowStateCodec,
    counters: StateCounters,
    orderedRows: Boolean) extends GroupRows {

  override def get(group: InternalRow, kind: StateRowKind, time: Long): UnsafeRow = {
    val value = StateStoreApi.get(store, codec.key(group, kind, time), layout.dataFamily)
    if (value != null) counters.read += 1
    value
  }

  override def put(group: InternalRow, kind: StateRowKind, time: Long, value: UnsafeRow): Unit = {
    StateStoreApi.put(store, codec.key(group, kind, time), value, layout.dataFamily)
    counters.written += 1
  }

  override def insert(group: InternalRow, kind: StateRowKind, time: Long, value: UnsafeRow): Unit = {
    put(group, kind, time, value)
    counters.created += 1
  }

  override def remove(group: InternalRow, kind: StateRowKind, time: Long): Unit = {
    StateStoreApi.remove(store, codec.key(group, kind, time), layout.dataFamily)
    counters.removed += 1
  }

  override def rows(group: InternalRow, kind: StateRowKind, from: Long, to: Long): RowCursor =
    if (!orderedRows) scanRows(group, kind, from, to)
    else {
      // Range scans are end-exclusive; no time is Long.MaxValue (window bounds must fit).
      val start = codec.key(group, kind, from).copy()
      val end = codec.key(group, kind, if (to == Long.MaxValue) to else to + 1).copy()
      new RangeCursor(OrderedRangeScan.scan(store, start, end, layout.dataFamily), from, to)
    }

  /** Every row of the group and kind is read by prefix scan, and sorted. */
  private def scanRows(group: InternalRow, kind: StateRowKind, from: Long, to: Long): RowCursor = {
    val found = mutable.ArrayBuffer.empty[(Long, UnsafeRow)]
    val iter = StateStoreApi.prefixScan(store, codec.prefix(group, kind), layout.dataFamily)
    try iter.foreach { pair =>
      val t = codec.timeOfKey(pair.key)
      if (t >= from && t <= to) found += ((t, pair.value.copy()))
    } finally iter.close()
    counters.read += found.length
    RowCursor.of(found.sortBy(_._1).iterator)
  }

  /** The rows of a range scan within `from <= time <= to`, counted as they are read. */
  private final class RangeCursor(iter: StateStoreRows, from: Long, to: Long) extends RowCursor {
    override def next(): Boolean = {
      while (iter.hasNext) {
        val pair = iter.next()
        val t = codec.timeOfKey(pair.key)
        if (t >= from && t <= to) {
          counters.read += 1
          set(t, pair.value)
          return true
        }
      }
      false
    }
    override def close(): Unit = iter.close()
  }
}
