package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.slidingwindow.codegen.{ConcatRow, ProjectionPool}
import org.apache.spark.sql.types.{IntegerType, LongType, StructField, StructType}

/**
 * A time index: a column family of entries (time, group), ordered by time (RocksDB on Spark 4,
 * [[StateArrangement.timeIndex]]), so that a micro-batch reads the entries due under its
 * watermark and no others, as Flink's timer service and Spark's `TimerStateImpl` keep timers.
 * Every entry put or removed is counted in the state's ledger. The windowed aggregation's visits
 * are scheduled in one ([[sliding.TimeIndexTimers]]), and trailing windows' groups expire through
 * one ([[trailing.FramesRows]]).
 *
 * @param keySchema `__time` BIGINT, then the group's fields ([[TimeIndex.keySchema]])
 */
final class TimeIndex(store: StateStore, keySchema: StructType, counters: StateCounters,
    val family: String = TimeIndex.Family) {
  import TimeIndex._

  StateStoreApi.createFamily(store, family, keySchema, ValueSchema, encoding(keySchema))

  private val fields = keySchema.fields.toSeq.zipWithIndex.map { case (f, i) => BoundReference(i, f.dataType, f.nullable) }
  private val keyOf: UnsafeProjection = ProjectionPool.unsafe(fields)
  private val groupOf: UnsafeProjection = ProjectionPool.unsafe(fields.drop(1))
  private val time = new SpecificInternalRow(Seq(LongType))
  private val joined = new ConcatRow

  /** The entry of `group` at `time`; valid until the next call. */
  def key(time: Long, group: InternalRow): UnsafeRow = {
    this.time.setLong(0, time)
    keyOf(joined(this.time, group))
  }

  def timeOf(key: UnsafeRow): Long = key.getLong(0)

  /** The group of an entry; valid until the next call. */
  def groupOfKey(key: UnsafeRow): UnsafeRow = groupOf(key)

  def put(time: Long, group: InternalRow): Unit = {
    StateStoreApi.put(store, key(time, group), nothing, family)
    counters.written += 1
    counters.created += 1
  }

  def remove(time: Long, group: InternalRow): Unit = removeKey(key(time, group))

  def removeKey(key: UnsafeRow): Unit = {
    StateStoreApi.remove(store, key, family)
    counters.removed += 1
  }

  /** The entries in time order, to close once read. */
  def entries(): StateStoreRows = StateStoreApi.iterator(store, family)

  /** The time of the first entry: one seek (Long.MaxValue: none). */
  def first: Long = {
    val all = entries()
    try if (all.hasNext) timeOf(all.next().key) else Long.MaxValue
    finally all.close()
  }

  /** The number of entries, read all. */
  def count(): Long = {
    val all = entries()
    var n = 0L
    try while (all.hasNext) { all.next(); n += 1 } finally all.close()
    n
  }
}

object TimeIndex {
  val Family = "time_index"

  /** The key schema of an index of groups of `groupFields`. */
  def keySchema(groupFields: Seq[StructField]): StructType =
    StructType(StructField("__time", LongType, nullable = false) +: groupFields)

  /** Ordered on the time: a scan reads the entries by time. */
  def encoding(keySchema: StructType): StateStoreApi.KeyEncoding = StateStoreApi.orderedKeys(keySchema, Seq(0))

  val ValueSchema: StructType = StructType(Seq(StructField("__unused", IntegerType)))

  private val nothing = {
    val row = new UnsafeRow(1)
    row.pointTo(new Array[Byte](16), 16)
    row.setNullAt(0)
    row
  }
}
