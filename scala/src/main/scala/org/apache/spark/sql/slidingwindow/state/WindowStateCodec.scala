package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, CreateStruct, Expression, SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.slidingwindow.aggregation.ConcatRow
import org.apache.spark.sql.types.{IntegerType, LongType, StructType}

/** Keys and values of a [[WindowStateLayout]]. Every row it returns is reused by the next call. */
final class WindowStateCodec(layout: WindowStateLayout) {
  import layout._

  private val kindAndTime = new SpecificInternalRow(Seq(IntegerType, LongType))
  private val keyInput = new ConcatRow
  private val keyProjection = UnsafeProjection.create(fieldsOf(keySchema))

  private val times = new SpecificInternalRow(Seq(LongType, LongType))
  private val valueInput = new ConcatRow
  private val valueProjection = UnsafeProjection.create(
    CreateStruct(fieldsOf(bufferSchema)) +: Seq(
      BoundReference(numBufferFields, LongType, nullable = true),
      BoundReference(numBufferFields + 1, LongType, nullable = true)))

  private val indexTime = new SpecificInternalRow(Seq(LongType))
  private val indexInput = new ConcatRow
  private val indexProjection = UnsafeProjection.create(fieldsOf(indexKeySchema))
  private val groupOfIndexProjection =
    UnsafeProjection.create(fieldsOf(indexKeySchema).drop(1))
  private val groupOfKeyProjection = UnsafeProjection.create(fieldsOf(keySchema).take(groupWidth))

  private def fieldsOf(schema: StructType): Seq[Expression] =
    schema.fields.toSeq.zipWithIndex.map { case (f, i) => BoundReference(i, f.dataType, f.nullable) }

  def key(group: InternalRow, kind: StateRowKind, time: Long): UnsafeRow = {
    kindAndTime.setInt(0, kind.id)
    kindAndTime.setLong(1, time)
    keyProjection(keyInput(group, kindAndTime))
  }

  /** The (group, kind) prefix of keys, for prefix scans. */
  def prefix(group: InternalRow, kind: StateRowKind): UnsafeRow = {
    kindAndTime.setInt(0, kind.id)
    prefixProjection(keyInput(group, kindAndTime))
  }
  private val prefixProjection = UnsafeProjection.create(fieldsOf(keySchema).take(groupWidth + 1))

  def kindOfKey(key: UnsafeRow): StateRowKind = StateRowKind.of(key.getInt(groupWidth))
  def timeOfKey(key: UnsafeRow): Long = key.getLong(groupWidth + 1)
  def groupOfKey(key: UnsafeRow): UnsafeRow = groupOfKeyProjection(key)

  /** A value of a buffer and two optional times (None: null). */
  def value(buffer: InternalRow, t1: Option[Long] = None, t2: Option[Long] = None): UnsafeRow = {
    setOrNull(0, t1)
    setOrNull(1, t2)
    valueProjection(valueInput(buffer, times))
  }

  private def setOrNull(i: Int, t: Option[Long]): Unit =
    if (t.isDefined) times.setLong(i, t.get) else times.setNullAt(i)

  /** The buffer of a value, read in place. */
  def buffer(value: UnsafeRow): UnsafeRow = value.getStruct(0, numBufferFields)
  def t1(value: UnsafeRow): Option[Long] = if (value.isNullAt(1)) None else Some(value.getLong(1))
  def t2(value: UnsafeRow): Option[Long] = if (value.isNullAt(2)) None else Some(value.getLong(2))

  def indexKey(time: Long, group: InternalRow): UnsafeRow = {
    indexTime.setLong(0, time)
    indexProjection(indexInput(indexTime, group))
  }
  def timeOfIndex(indexKey: UnsafeRow): Long = indexKey.getLong(0)
  def groupOfIndex(indexKey: UnsafeRow): UnsafeRow = groupOfIndexProjection(indexKey)
}
