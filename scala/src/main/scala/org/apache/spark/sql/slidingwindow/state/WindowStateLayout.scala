package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.expressions.{Attribute, BoundReference, Expression, Literal, UnsafeProjection}
import org.apache.spark.sql.slidingwindow.codegen.ProjectionPool
import org.apache.spark.sql.types.{BinaryType, IntegerType, LongType, StructField, StructType}

/**
 * How a streaming windowed aggregation keeps its state (docs/contract.md, "Sliding windows in
 * Structured Streaming" and "Batch windows").
 *
 * One key space holds every row of a group, keyed by (group, kind, time):
 *  - [[StateRowKind.Partial]]: the frozen partial aggregate of the group's rows at `time`
 *    (sliding windows), or of its open window starting at `time` (batch windows, with the
 *    group's stream time);
 *  - [[StateRowKind.Suffix]]: sliding windows, the front of the group's Two-Stacks queue:
 *    at `time`, the aggregate of the partials from `time` to the end of the front;
 *  - [[StateRowKind.Meta]]: sliding windows in append mode, at time 0: the aggregate of
 *    the back of the queue, with the last time pushed into the queue and the oldest time of the
 *    back.
 * Values are `(__buffer, __t1, __t2)`: the aggregation buffer as a struct, so that it is read in
 * place, and two optional times, which hold what the row's kind says ([[WindowStateCodec]]):
 * `__t1` the stream time (batch windows' Partial) or the last time pushed (Meta), `__t2` the
 * oldest time of the back (Meta). The key stores the kind's id ([[StateRowKind]]).
 *
 * With RocksDB on Spark 4.2 and later, keys are ordered by time within (group, kind), so a range
 * of a group's rows is read by range scan; otherwise a group's rows of a kind are read by prefix
 * scan and sorted ([[OrderedRangeScan]]). RocksDB (Spark 4, which has column families) also keeps
 * the `time_index` column family: (time, group) entries, ordered by time, saying when a group must be
 * visited again (a window of it closes, or rows of it expire), so that a micro-batch finds the
 * groups it has work for by reading the head of the index, never by scanning the state.
 *
 * State format 2 adds one [[StateRowKind.Record]] row per group ([[GroupRecord]]), which holds
 * what the Meta row held, the group's next scheduled visit, and, while the group is small, its
 * Partial and Suffix rows; values get a fourth field, `__record` (the record's own contents, null
 * in other rows), and `__buffer` may be null (a record without Meta fields).
 *
 * A query without grouping keys stores a constant group column.
 */
final class WindowStateLayout(val version: Int, keys: Seq[Attribute], val bufferSchema: StructType)
  extends Serializable {

  private val groupFields: Seq[StructField] =
    if (keys.isEmpty) Seq(StructField("__group", IntegerType, nullable = false))
    else keys.map(k => StructField(k.name, k.dataType, k.nullable))
  val groupWidth: Int = groupFields.length
  val groupSchema: StructType = StructType(groupFields)
  private val timeField = StructField("__time", LongType, nullable = false)

  val keySchema: StructType =
    StructType(groupFields ++ Seq(StructField("__kind", IntegerType, nullable = false), timeField))
  /** State format 2 and later: one record per group ([[GroupRecord]]). */
  val hasGroupRecords: Boolean = version >= 2
  val valueSchema: StructType = StructType(Seq(
    StructField("__buffer", bufferSchema, nullable = hasGroupRecords),
    StructField("__t1", LongType, nullable = true),
    StructField("__t2", LongType, nullable = true)) ++
    (if (hasGroupRecords) Seq(StructField("__record", BinaryType, nullable = true)) else Nil))
  val numBufferFields: Int = bufferSchema.length

  /** Ordered by time within (group, kind), for range scans; or prefix scans by (group, kind). */
  def keyEncoding(ordered: Boolean): StateStoreApi.KeyEncoding =
    if (ordered) OrderedRangeScan.keyEncoding(keySchema)
    else StateStoreApi.prefixKeys(keySchema, groupWidth + 1)
  val dataFamily: String = StateStoreApi.defaultFamily

  val indexKeySchema: StructType = StructType(timeField +: groupFields)
  def indexEncoding: StateStoreApi.KeyEncoding = StateStoreApi.orderedKeys(indexKeySchema, Seq(0))
  val indexValueSchema: StructType = StructType(Seq(StructField("__unused", IntegerType)))
  val indexFamily = "time_index"
  /** State format 2, RocksDB: the rows of chunks of large groups ([[GroupRecord.chunks]]), apart from the records. */
  val chunkFamily = "chunks"

  private def columns(schema: StructType, ordinals: Seq[Int]): Seq[Expression] =
    ordinals.map(i => BoundReference(i, schema(i).dataType, schema(i).nullable))

  /** The group of an input row. */
  def groupOfInput(inputAttributes: Seq[Attribute]): UnsafeProjection =
    ProjectionPool.unsafe(if (keys.isEmpty) Seq(Literal(0)) else keys, inputAttributes)

  /** The grouping keys as the output shows them (none for a query without keys). */
  def outputKeysOfGroup(): UnsafeProjection =
    ProjectionPool.unsafe(if (keys.isEmpty) Nil else columns(groupSchema, 0 until groupWidth))

  /** Builds and reads keys and values; one per task (reused rows). */
  def codec(): WindowStateCodec = new WindowStateCodec(this)
}

object WindowStateLayout {
  /** The layout of state format `version` ([[StateFormatVersion]]). */
  def apply(version: Int, keys: Seq[Attribute], bufferSchema: StructType): WindowStateLayout = {
    require(StateFormatVersion.supported.contains(version), s"unknown state format version $version")
    new WindowStateLayout(version, keys, bufferSchema)
  }
}
