package org.apache.spark.sql.slidingwindow.state

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * Providers without column families (Spark's default, HDFS-backed; any on Spark 3.5): a group's
 * rows are read by prefix scan and sorted, and every group is visited in every micro-batch that
 * has a watermark. Cost grows with the state, which holds only what open windows need.
 */
private[state] final class ScanningWindowStateStore(store: StateStore, layout: WindowStateLayout)
  extends WindowStateStore(store, layout) {

  override def hasTimeIndex: Boolean = false

  override def rows(group: InternalRow, kind: StateRowKind, from: Long, to: Long): RowCursor =
    scanRows(group, kind, from, to)

  override def schedule(time: Long, group: InternalRow): Unit = ()
  override def unschedule(time: Long, group: InternalRow): Unit = ()

  // Collected first: visits write rows of the groups, and this provider keeps its whole state
  // in memory anyway.
  override def due(watermark: Long): Iterator[UnsafeRow] = {
    val groups = mutable.LinkedHashSet.empty[UnsafeRow]
    val iter = StateStoreApi.iterator(store, layout.dataFamily)
    try iter.foreach(pair => groups += codec.groupOfKey(pair.key).copy())
    finally iter.close()
    groups.iterator
  }
}
