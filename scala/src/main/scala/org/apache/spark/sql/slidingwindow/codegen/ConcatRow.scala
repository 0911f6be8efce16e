package org.apache.spark.sql.slidingwindow.codegen

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.{ArrayData, MapData}
import org.apache.spark.sql.types.{DataType, Decimal}
import org.apache.spark.unsafe.types.{CalendarInterval, UTF8String}

/**
 * The fields of two or three rows side by side, read-only: what Catalyst's JoinedRow does, for
 * the hot paths of the window operators. The widths are taken once per `apply`, not at every
 * access as nested JoinedRows do, and each part is read through call sites of its own, which see
 * only the few row classes of these paths (JoinedRow's are shared by every operator of Spark).
 * The getters each Spark version adds are in [[ConcatRowGetters]] (scala-shims).
 */
final class ConcatRow extends ConcatRowGetters {
  private var a: InternalRow = _
  private var b: InternalRow = _
  private var c: InternalRow = _
  private var endA = 0
  private var endB = 0
  private var width = 0

  def apply(a: InternalRow, b: InternalRow): ConcatRow = {
    this.a = a
    this.b = b
    c = null
    endA = a.numFields
    endB = endA + b.numFields
    width = endB
    this
  }

  def apply(a: InternalRow, b: InternalRow, c: InternalRow): ConcatRow = {
    apply(a, b)
    this.c = c
    width = endB + c.numFields
    this
  }

  override def numFields: Int = width

  override protected def partOf(i: Int): InternalRow = if (i < endA) a else if (i < endB) b else c
  override protected def ordinalIn(i: Int): Int = if (i < endA) i else if (i < endB) i - endA else i - endB

  override def isNullAt(i: Int): Boolean =
    if (i < endA) a.isNullAt(i) else if (i < endB) b.isNullAt(i - endA) else c.isNullAt(i - endB)
  override def getBoolean(i: Int): Boolean =
    if (i < endA) a.getBoolean(i) else if (i < endB) b.getBoolean(i - endA) else c.getBoolean(i - endB)
  override def getByte(i: Int): Byte =
    if (i < endA) a.getByte(i) else if (i < endB) b.getByte(i - endA) else c.getByte(i - endB)
  override def getShort(i: Int): Short =
    if (i < endA) a.getShort(i) else if (i < endB) b.getShort(i - endA) else c.getShort(i - endB)
  override def getInt(i: Int): Int =
    if (i < endA) a.getInt(i) else if (i < endB) b.getInt(i - endA) else c.getInt(i - endB)
  override def getLong(i: Int): Long =
    if (i < endA) a.getLong(i) else if (i < endB) b.getLong(i - endA) else c.getLong(i - endB)
  override def getFloat(i: Int): Float =
    if (i < endA) a.getFloat(i) else if (i < endB) b.getFloat(i - endA) else c.getFloat(i - endB)
  override def getDouble(i: Int): Double =
    if (i < endA) a.getDouble(i) else if (i < endB) b.getDouble(i - endA) else c.getDouble(i - endB)
  override def getDecimal(i: Int, precision: Int, scale: Int): Decimal =
    if (i < endA) a.getDecimal(i, precision, scale)
    else if (i < endB) b.getDecimal(i - endA, precision, scale)
    else c.getDecimal(i - endB, precision, scale)
  override def getUTF8String(i: Int): UTF8String =
    if (i < endA) a.getUTF8String(i) else if (i < endB) b.getUTF8String(i - endA) else c.getUTF8String(i - endB)
  override def getBinary(i: Int): Array[Byte] =
    if (i < endA) a.getBinary(i) else if (i < endB) b.getBinary(i - endA) else c.getBinary(i - endB)
  override def getInterval(i: Int): CalendarInterval =
    if (i < endA) a.getInterval(i) else if (i < endB) b.getInterval(i - endA) else c.getInterval(i - endB)
  override def getStruct(i: Int, numFields: Int): InternalRow =
    if (i < endA) a.getStruct(i, numFields)
    else if (i < endB) b.getStruct(i - endA, numFields)
    else c.getStruct(i - endB, numFields)
  override def getArray(i: Int): ArrayData =
    if (i < endA) a.getArray(i) else if (i < endB) b.getArray(i - endA) else c.getArray(i - endB)
  override def getMap(i: Int): MapData =
    if (i < endA) a.getMap(i) else if (i < endB) b.getMap(i - endA) else c.getMap(i - endB)
  override def get(i: Int, dataType: DataType): AnyRef =
    if (i < endA) a.get(i, dataType) else if (i < endB) b.get(i - endA, dataType) else c.get(i - endB, dataType)

  override def setNullAt(i: Int): Unit = throw new UnsupportedOperationException("ConcatRow is read-only")
  override def update(i: Int, value: Any): Unit = throw new UnsupportedOperationException("ConcatRow is read-only")

  override def copy(): InternalRow = {
    val copied = new ConcatRow
    if (c == null) copied(a.copy(), b.copy()) else copied(a.copy(), b.copy(), c.copy())
  }
}
