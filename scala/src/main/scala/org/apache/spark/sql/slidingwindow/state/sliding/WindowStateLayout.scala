package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.catalyst.expressions.{Attribute, BoundReference, Expression, Literal, UnsafeProjection}
import org.apache.spark.sql.slidingwindow.codegen.ProjectionPool
import org.apache.spark.sql.types.{BinaryType, IntegerType, LongType, StructField, StructType}

/**
 * How a streaming windowed aggregation keeps its state (docs/contract.md, "Sliding windows in
 * Structured Streaming" and "Batch windows"): the key and value schemas of state format
 * `version` ([[StateFormatVersion]]), keys (group, kind, time) with the kind's id
 * ([[StateRowKind]]), values `(__buffer, __t1, __t2)` and, from format 2, `__record`; and the
 * column families beside the data (`time_index`, `chunks`). The schemas, their key encodings by
 * arrangement ([[StateArrangement]]) and what each row holds: docs/state-format.md, sections
 * "Column families and schemas" and "Rows by format".
 */
final class WindowStateLayout(val version: Int, keys: Seq[Attribute], val bufferSchema: StructType)
  extends StateStoreSchema {

  private val groupFields: Seq[StructField] =
    if (keys.isEmpty) Seq(StructField("__group", IntegerType, nullable = false))
    else keys.map(k => StructField(k.name, k.dataType, k.nullable))
  val groupWidth: Int = groupFields.length
  val groupSchema: StructType = StructType(groupFields)
  private val timeField = StructField("__time", LongType, nullable = false)

  override val keySchema: StructType =
    StructType(groupFields ++ Seq(StructField("__kind", IntegerType, nullable = false), timeField))
  /** State format 2 and later: one record per group ([[GroupRecord]]). */
  val hasGroupRecords: Boolean = version >= 2
  override val valueSchema: StructType = StructType(Seq(
    StructField("__buffer", bufferSchema, nullable = hasGroupRecords),
    StructField("__t1", LongType, nullable = true),
    StructField("__t2", LongType, nullable = true)) ++
    (if (hasGroupRecords) Seq(StructField("__record", BinaryType, nullable = true)) else Nil))
  val numBufferFields: Int = bufferSchema.length

  /** Ordered by time within (group, kind), for range scans; or prefix scans by (group, kind). */
  override def keyEncoding(ordered: Boolean): StateStoreApi.KeyEncoding =
    if (ordered) OrderedRangeScan.keyEncoding(keySchema)
    else StateStoreApi.prefixKeys(keySchema, groupWidth + 1)
  override val dataFamily: String = StateStoreApi.defaultFamily

  val indexKeySchema: StructType = StructType(timeField +: groupFields)
  val indexFamily: String = TimeIndex.Family
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
