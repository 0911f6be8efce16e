package org.apache.spark.sql.slidingwindow.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Expression, SortOrder, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode, FalseLiteral}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types.{BinaryType, BooleanType, ByteType, DataType, DateType, DayTimeIntervalType, DecimalType, IntegerType, LongType, ShortType, StringType, TimestampNTZType, TimestampType, YearMonthIntervalType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * The order of a group's key in RocksDB: its `UnsafeRow`'s bytes compared one by one, unsigned
 * (RocksDB's bytewise comparator), which is not the order of the key's values (a long is stored
 * little-endian). A streaming operator that reads and writes its groups' state rows in that
 * order walks RocksDB's memtable and files forward instead of jumping about them
 * (docs/performance.md); its input is sorted so by [[KeyBytesOrder.of]].
 *
 * An `UnsafeRow`'s bytes are its null bits, one 8-byte slot per field (a fixed-width value, or a
 * variable-length value's offset and size), then the variable-length values. Rows whose null
 * bits and slots are equal have their variable-length values of equal sizes at equal offsets, so
 * the bytes compare as: the null bits, each slot, then each variable-length value's bytes. Equal
 * bytes are equal keys, so a group's rows stay together.
 */
object KeyBytesOrder {
  /**
   * Internal, tuning: whether streaming queries on RocksDB sort their groups so (read at
   * planning; true by default). docs/development.md, "Internal settings".
   */
  val enabledKey = "spark.sql.slidingWindow.state.keyBytesOrder"

  /**
   * The sort order of rows by the bytes of the key `keys` make (the key of a state row holds
   * them first), or None if a key's type is one whose bytes are not ordered here (the input is
   * then sorted by the keys' values, as before).
   */
  def of(keys: Seq[Expression]): Option[Seq[SortOrder]] = {
    if (keys.isEmpty || keys.length >= 64 || !keys.forall(k => SlotOrder.supports(k.dataType))) None
    else {
      val nullBits = if (keys.exists(_.nullable)) Seq(NullBitsOrder(keys)) else Nil
      val slots = keys.map(SlotOrder(_))
      val variable = keys.filter(k => SlotOrder.variableLength(k.dataType))
      Some((nullBits ++ slots ++ variable).map(SortOrder(_, Ascending)))
    }
  }

  /** A word's 8 bytes, first to last as written little-endian, as a long in signed order. */
  def unsignedBytes(word: Long): Long = java.lang.Long.reverseBytes(word) ^ Long.MinValue
}

/**
 * The order of the bytes of the 8-byte slot that `child` takes in an `UnsafeRow` (a null's slot
 * is zeros): the value written little-endian, or a variable-length value's size.
 */
case class SlotOrder(child: Expression) extends UnaryExpression {
  override def dataType: DataType = LongType
  override def nullable: Boolean = false
  override def prettyName: String = "key_bytes_order"

  override def eval(input: InternalRow): Any = {
    val value = child.eval(input)
    KeyBytesOrder.unsignedBytes(if (value == null) 0L else SlotOrder.slot(child.dataType, value))
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val c = child.genCode(ctx)
    val slot = child.dataType match {
      case BooleanType => s"(${c.value} ? 1L : 0L)"
      case ByteType => s"((long) ${c.value} & 0xFFL)"
      case ShortType => s"((long) ${c.value} & 0xFFFFL)"
      case IntegerType | DateType | _: YearMonthIntervalType => s"((long) ${c.value} & 0xFFFFFFFFL)"
      case _: DecimalType => s"${c.value}.toUnscaledLong()"
      case StringType => s"((long) ${c.value}.numBytes())"
      case BinaryType => s"((long) ${c.value}.length)"
      case _ => c.value.toString
    }
    ev.copy(code = code"""${c.code}
      long ${ev.value} = ${KeyBytesOrder.getClass.getName.stripSuffix("$")}.unsignedBytes(${c.isNull} ? 0L : $slot);""",
      isNull = FalseLiteral)
  }

  override protected def withNewChildInternal(newChild: Expression): SlotOrder = copy(child = newChild)
}

object SlotOrder {
  /** The types whose slot this orders: fixed-width values of at most 8 bytes, strings and binaries. */
  def supports(t: DataType): Boolean = t match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | DateType | TimestampType |
         TimestampNTZType | BinaryType => true
    case _: YearMonthIntervalType | _: DayTimeIntervalType => true
    case d: DecimalType => d.precision <= org.apache.spark.sql.types.Decimal.MAX_LONG_DIGITS
    case s => s == StringType // binary collation only: its order is its bytes'
  }

  def variableLength(t: DataType): Boolean = t == StringType || t == BinaryType

  private[expressions] def slot(t: DataType, value: Any): Long = (t, value) match {
    case (BooleanType, b: Boolean) => if (b) 1L else 0L
    case (ByteType, b: Byte) => b & 0xFFL
    case (ShortType, s: Short) => s & 0xFFFFL
    case (_, i: Int) => i & 0xFFFFFFFFL
    case (_, l: Long) => l
    case (_, d: org.apache.spark.sql.types.Decimal) => d.toUnscaledLong
    case (_, s: UTF8String) => s.numBytes
    case (_, b: Array[Byte]) => b.length
    case _ => throw new IllegalArgumentException(s"no slot order for $t")
  }
}

/** The order of the bytes of the null bits of an `UnsafeRow` whose first fields are `children`. */
case class NullBitsOrder(children: Seq[Expression]) extends Expression {
  require(children.length < 64, "one word of null bits")
  override def dataType: DataType = LongType
  override def nullable: Boolean = false
  override def prettyName: String = "key_null_bits_order"

  override def eval(input: InternalRow): Any = {
    var bits = 0L
    var i = 0
    while (i < children.length) {
      if (children(i).eval(input) == null) bits |= 1L << i
      i += 1
    }
    KeyBytesOrder.unsignedBytes(bits)
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val bits = ctx.freshName("bits")
    val each = children.zipWithIndex.map { case (c, i) =>
      val e = c.genCode(ctx)
      s"${e.code}\nif (${e.isNull}) $bits |= ${1L << i}L;"
    }
    ev.copy(code = code"""long $bits = 0L;
      ${each.mkString("\n")}
      long ${ev.value} = ${KeyBytesOrder.getClass.getName.stripSuffix("$")}.unsignedBytes($bits);""",
      isNull = FalseLiteral)
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): NullBitsOrder =
    copy(children = newChildren)
}
