package org.apache.spark.sql.slidingwindow.state
package sliding

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * Visit timers without a time index (providers without column families: Spark's default,
 * HDFS-backed; any on Spark 3.5): nothing is stored, and every group with a state row is due in
 * every micro-batch that has a watermark. Cost grows with the state, which holds only what open
 * windows need.
 */
private[state] final class EveryGroupTimers(store: StateStore, layout: WindowStateLayout,
    codec: WindowStateCodec, watermark: Option[Long]) extends EntryTimers(watermark) {

  override def hasTimeIndex: Boolean = false
  // Nothing is stored, but with a watermark every group is visited in every micro-batch, and each
  // visit schedules the group's next one: the earliest of those is the next due.
  private var earliest = Long.MaxValue
  override def schedule(time: Long, group: InternalRow): Unit = if (time < earliest) earliest = time
  override def unschedule(time: Long, group: InternalRow): Unit = ()
  override def nextDue: Long = earliest

  // Collected first: visits write rows of the groups, and this provider keeps its whole state in
  // memory anyway.
  override protected def dueThrough(watermark: Long): Iterator[UnsafeRow] = {
    val groups = mutable.LinkedHashSet.empty[UnsafeRow]
    val iter = StateStoreApi.iterator(store, layout.dataFamily)
    try iter.foreach(pair => groups += codec.groupOfKey(pair.key).copy())
    finally iter.close()
    groups.iterator
  }
}
