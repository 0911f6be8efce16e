package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, CreateStruct, Expression, GenericInternalRow, Literal, SpecificInternalRow, UnsafeRow}
import org.apache.spark.sql.slidingwindow.codegen.ConcatRow
import org.apache.spark.sql.slidingwindow.codegen.ProjectionPool
import org.apache.spark.sql.types.{BinaryType, IntegerType, LongType, StructType}

/**
 * Keys and values of a [[WindowStateLayout]]. Every row it returns is reused by the next call.
 *
 * A value is a buffer and two optional times, whose meaning depends on the row's kind: values
 * are built by kind ([[partialValue]], [[windowValue]], [[queueBackValue]]) and their times read by
 * what they hold ([[streamTime]], [[lastPushed]], [[backOldest]]); what each kind's value holds:
 * docs/state-format.md, section "Rows by format".
 */
final class WindowStateCodec(layout: WindowStateLayout) {
  import layout._

  private val kindAndTime = new SpecificInternalRow(Seq(IntegerType, LongType))
  private val keyInput = new ConcatRow
  private val keyProjection = ProjectionPool.unsafe(fieldsOf(keySchema))

  private val times = new SpecificInternalRow(Seq(LongType, LongType))
  private val valueInput = new ConcatRow
  private val valueProjection = ProjectionPool.unsafe(Seq(
    CreateStruct(fieldsOf(bufferSchema)),
    BoundReference(numBufferFields, LongType, nullable = true),
    BoundReference(numBufferFields + 1, LongType, nullable = true)) ++
    (if (hasGroupRecords) Seq(Literal(null, BinaryType)) else Nil))

  // State format 2: a group's record, from its QueueBack value (or none) and its contents.
  private val recordContents = new SpecificInternalRow(Seq(BinaryType))
  private val recordInput = new ConcatRow
  private val noQueueBack = new GenericInternalRow(4) // a QueueBack value of nulls (format 2 has 4 fields)
  private val recordProjection = if (!hasGroupRecords) null else ProjectionPool.unsafe(Seq(
    BoundReference(0, bufferSchema, nullable = true),
    BoundReference(1, LongType, nullable = true),
    BoundReference(2, LongType, nullable = true),
    BoundReference(4, BinaryType, nullable = true))) // the QueueBack value's 4 fields, then the contents

  private val groupOfKeyProjection = ProjectionPool.unsafe(fieldsOf(keySchema).take(groupWidth))

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
  private val prefixProjection = ProjectionPool.unsafe(fieldsOf(keySchema).take(groupWidth + 1))

  def kindOfKey(key: UnsafeRow): StateRowKind = StateRowKind.of(key.getInt(groupWidth))
  def timeOfKey(key: UnsafeRow): Long = key.getLong(groupWidth + 1)
  def groupOfKey(key: UnsafeRow): UnsafeRow = groupOfKeyProjection(key)

  /**
   * A value of a [[StateRowKind.Partial]] row of sliding windows, or of a [[StateRowKind.Suffix]]
   * row: the buffer alone.
   */
  def partialValue(buffer: InternalRow): UnsafeRow = value(buffer, None, None)

  /** A value of a [[StateRowKind.Partial]] row of batch windows: the open window's buffer. */
  def windowValue(buffer: InternalRow, streamTime: Long): UnsafeRow = value(buffer, Some(streamTime), None)

  /** A value of a [[StateRowKind.QueueBack]] row: the aggregate of the back of the group's queue. */
  def queueBackValue(buffer: InternalRow, lastPushed: Long, backOldest: Option[Long]): UnsafeRow =
    value(buffer, Some(lastPushed), backOldest)

  /**
   * State format 2: the value of a group's [[StateRowKind.Record]] row: the fields of its QueueBack
   * value (none: null) and the record's own contents ([[GroupRecord]]).
   */
  def recordValue(queueBack: UnsafeRow, contents: Array[Byte]): UnsafeRow = {
    recordContents.update(0, contents)
    recordProjection(recordInput(if (queueBack == null) noQueueBack else queueBack, recordContents))
  }

  /** State format 2: whether a group's record carries QueueBack fields. */
  def recordHasQueueBack(record: UnsafeRow): Boolean = !record.isNullAt(1)

  /** State format 2: the ordinal of a group's record's contents ([[GroupRecord]] reads them in place). */
  val recordContentsOrdinal = 3

  /** The buffer of a value, read in place. */
  def buffer(value: UnsafeRow): UnsafeRow = value.getStruct(0, numBufferFields)

  /** Of a batch window's [[StateRowKind.Partial]] row: the group's stream time. */
  def streamTime(value: UnsafeRow): Long = timeAt(value, 1).get

  /** Of a [[StateRowKind.QueueBack]] row: the last time pushed into the group's queue. */
  def lastPushed(value: UnsafeRow): Option[Long] = timeAt(value, 1)

  /** Of a [[StateRowKind.QueueBack]] row: the oldest time of the back of the queue, none if it is empty. */
  def backOldest(value: UnsafeRow): Option[Long] = timeAt(value, 2)

  // The schema names the two times `__t1` and `__t2` (part of the checkpoint format); what they
  // hold depends on the row's kind, so they are read and written only through the methods above.
  private def value(buffer: InternalRow, t1: Option[Long], t2: Option[Long]): UnsafeRow = {
    setOrNull(0, t1)
    setOrNull(1, t2)
    valueProjection(valueInput(buffer, times))
  }

  private def setOrNull(i: Int, t: Option[Long]): Unit =
    if (t.isDefined) times.setLong(i, t.get) else times.setNullAt(i)

  private def timeAt(value: UnsafeRow, ordinal: Int): Option[Long] =
    if (value.isNullAt(ordinal)) None else Some(value.getLong(ordinal))
}
