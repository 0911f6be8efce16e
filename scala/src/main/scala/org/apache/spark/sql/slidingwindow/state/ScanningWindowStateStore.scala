package org.apache.spark.sql.slidingwindow.state

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * Providers without column families or ordered scans (Spark's default, HDFS-backed): a group's
 * rows are read by prefix scan and sorted, and every group is visited in every micro-batch that
 * has a watermark. Cost grows with the state, which holds only what open windows need.
 */
private[state] final class ScanningWindowStateStore(store: StateStore, layout: WindowStateLayout)
  extends WindowStateStore(store, layout) {

  override def rows(group: InternalRow, kind: StateRowKind, from: Long, to: Long): RowCursor = {
    val prefix = codec.prefix(group, kind)
    val found = mutable.ArrayBuffer.empty[(Long, UnsafeRow)]
    val iter = store.prefixScan(prefix, layout.dataFamily)
    try iter.foreach { pair =>
      val t = codec.timeOfKey(pair.key)
      if (t >= from && t <= to) found += ((t, pair.value.copy()))
    } finally iter.close()
    rowsRead += found.length
    RowCursor.of(found.sortBy(_._1).iterator)
  }

  override def schedule(time: Long, group: InternalRow): Unit = ()
  override def unschedule(time: Long, group: InternalRow): Unit = ()

  // Collected first: visits write rows of the groups, and this provider keeps its whole state
  // in memory anyway.
  override def due(watermark: Long): Iterator[UnsafeRow] = {
    val groups = mutable.LinkedHashSet.empty[UnsafeRow]
    val iter = store.iterator(layout.dataFamily)
    try iter.foreach(pair => groups += codec.groupOfKey(pair.key).copy())
    finally iter.close()
    groups.iterator
  }
}
