package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.expressions.{Attribute, BoundReference, Expression, Literal, UnsafeProjection}
import org.apache.spark.sql.execution.streaming.state.{PrefixKeyScanStateEncoderSpec, RangeKeyScanStateEncoderSpec, StateStore}
import org.apache.spark.sql.types.{IntegerType, LongType, StructField, StructType}

/**
 * How a streaming windowed aggregation keeps its rows in the state store (RocksDB, with column
 * families):
 *
 *  - the default column family maps (group, time) to the frozen partial aggregate of the group's
 *    rows at that time; a prefix scan by group reads a group's partials;
 *  - `time_index` maps (time, group) to nothing; it is ordered by time (range-scan encoder), so the
 *    groups whose windows close under a watermark, and the partials no open window needs any
 *    more, are found by reading its head, never by scanning all state.
 *
 * A query without grouping keys stores a constant group column.
 */
final class WindowStateLayout(keys: Seq[Attribute], val valueSchema: StructType) extends Serializable {

  private val groupFields: Seq[StructField] =
    if (keys.isEmpty) Seq(StructField("__group", IntegerType, nullable = false))
    else keys.map(k => StructField(k.name, k.dataType, k.nullable))
  private val timeField = StructField("__time", LongType, nullable = false)
  val groupWidth: Int = groupFields.length

  val dataKeySchema: StructType = StructType(groupFields :+ timeField)
  val dataEncoder = PrefixKeyScanStateEncoderSpec(dataKeySchema, groupWidth)
  val dataFamily: String = StateStore.DEFAULT_COL_FAMILY_NAME

  val indexKeySchema: StructType = StructType(timeField +: groupFields)
  val indexEncoder = RangeKeyScanStateEncoderSpec(indexKeySchema, Seq(0))
  val indexValueSchema: StructType = StructType(Seq(StructField("__unused", IntegerType)))
  val indexFamily = "time_index"

  private def columns(schema: StructType, ordinals: Seq[Int]): Seq[Expression] =
    ordinals.map(i => BoundReference(i, schema(i).dataType, schema(i).nullable))

  /** Data key (group ++ time) of an input row. */
  def dataKeyOfInput(time: Attribute, inputAttributes: Seq[Attribute]): UnsafeProjection =
    UnsafeProjection.create((if (keys.isEmpty) Seq(Literal(0)) else keys) :+ time, inputAttributes)

  def groupOfData(): UnsafeProjection =
    UnsafeProjection.create(columns(dataKeySchema, 0 until groupWidth))
  def indexOfData(): UnsafeProjection =
    UnsafeProjection.create(columns(dataKeySchema, groupWidth +: (0 until groupWidth)))
  def dataOfIndex(): UnsafeProjection =
    UnsafeProjection.create(columns(indexKeySchema, (1 to groupWidth) :+ 0))
  def groupOfIndex(): UnsafeProjection =
    UnsafeProjection.create(columns(indexKeySchema, 1 to groupWidth))
  /** The grouping keys as the output shows them (none for a query without keys). */
  def outputKeysOfGroup(): UnsafeProjection =
    UnsafeProjection.create(if (keys.isEmpty) Nil else columns(StructType(groupFields), 0 until groupWidth))
}
