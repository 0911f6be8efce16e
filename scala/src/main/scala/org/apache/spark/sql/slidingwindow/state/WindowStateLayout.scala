package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BoundReference, Expression, GenericInternalRow, JoinedRow, Literal, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state.{KeyStateEncoderSpec, PrefixKeyScanStateEncoderSpec, RangeKeyScanStateEncoderSpec, StateStore, TimestampAsPostfixKeyStateEncoderSpec}
import org.apache.spark.sql.slidingwindow.expressions.{WindowDefinition, WindowKind}
import org.apache.spark.sql.types.{IntegerType, LongType, StructField, StructType}

/**
 * How a streaming windowed aggregation keeps its rows in the state store (RocksDB, with column
 * families):
 *
 *  - the default column family maps (group, time) to a frozen partial aggregate; a prefix scan by
 *    group reads a group's partials. Sliding windows keep one partial per time of the group's
 *    rows; batch windows keep the group's open window under its start time, with the group's
 *    stream time as an extra last column of the value;
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
  /**
   * With RocksDB (`ordered`), data keys are ordered by time within a group, so a group's partials
   * in a time range are read by range scan; other providers read a group by prefix scan.
   */
  def dataEncoder(ordered: Boolean): KeyStateEncoderSpec =
    if (ordered) TimestampAsPostfixKeyStateEncoderSpec(dataKeySchema)
    else PrefixKeyScanStateEncoderSpec(dataKeySchema, groupWidth)
  val dataFamily: String = StateStore.DEFAULT_COL_FAMILY_NAME

  val indexKeySchema: StructType = StructType(timeField +: groupFields)
  val indexEncoder = RangeKeyScanStateEncoderSpec(indexKeySchema, Seq(0))
  val indexValueSchema: StructType = StructType(Seq(StructField("__unused", IntegerType)))
  val indexFamily = "time_index"

  /** The data key (group, time) of a group and a time. Reused row. */
  def dataKeyOfGroup(): (InternalRow, Long) => UnsafeRow = {
    val projection = UnsafeProjection.create(columns(dataKeySchema, 0 to groupWidth))
    val time = new GenericInternalRow(1)
    val joined = new JoinedRow
    (group, t) => {
      time.setLong(0, t)
      projection(joined(group, time))
    }
  }

  /** Batch windows: the stored value of a frozen partial and a stream time. Reused row. */
  def valueWithStreamTime(): (InternalRow, Long) => UnsafeRow = {
    val projection = UnsafeProjection.create(columns(valueSchema, valueSchema.indices))
    val time = new GenericInternalRow(1)
    val joined = new JoinedRow
    (partial, t) => {
      time.setLong(0, t)
      projection(joined(partial, time))
    }
  }

  /** Batch windows: where a stored value keeps the stream time. */
  def streamTimeOrdinal: Int = valueSchema.length - 1

  private def columns(schema: StructType, ordinals: Seq[Int]): Seq[Expression] =
    ordinals.map(i => BoundReference(i, schema(i).dataType, schema(i).nullable))

  /** Data key (group ++ time) of an input row. */
  def dataKeyOfInput(time: Attribute, inputAttributes: Seq[Attribute]): UnsafeProjection =
    UnsafeProjection.create(groupColumns :+ time, inputAttributes)

  /** The group of an input row. */
  def groupOfInput(inputAttributes: Seq[Attribute]): UnsafeProjection =
    UnsafeProjection.create(groupColumns, inputAttributes)

  private def groupColumns: Seq[Expression] = if (keys.isEmpty) Seq(Literal(0)) else keys

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

object WindowStateLayout {
  /** The layout for a window kind, whose partial aggregates have `bufferSchema`. */
  def apply(definition: WindowDefinition, keys: Seq[Attribute], bufferSchema: StructType): WindowStateLayout =
    definition.kind match {
      case WindowKind.Sliding => new WindowStateLayout(keys, bufferSchema)
      case WindowKind.Batch =>
        new WindowStateLayout(keys, bufferSchema.add("__stream_time", LongType, nullable = false))
    }
}
