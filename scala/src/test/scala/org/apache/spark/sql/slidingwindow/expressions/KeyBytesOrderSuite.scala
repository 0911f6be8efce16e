package org.apache.spark.sql.slidingwindow.expressions

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, BoundReference, InterpretedOrdering, Literal, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateOrdering
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.sql.slidingwindow.PropertyCases

/**
 * The sort order of [[KeyBytesOrder]] against its definition: the bytes of the key row a state
 * row's key starts with (the group's fields, then the row kind), compared unsigned one by one, as
 * RocksDB compares keys. Random keys of random types, nullable or not, with few distinct values
 * (so that many compare equal), every pair compared, generated and interpreted.
 */
class KeyBytesOrderSuite extends AnyFunSuite {
  private val types: Seq[DataType] = Seq(BooleanType, ByteType, ShortType, IntegerType, LongType, DateType,
    TimestampType, TimestampNTZType, StringType, BinaryType, DecimalType(10, 2), DayTimeIntervalType(),
    YearMonthIntervalType())

  private def value(t: DataType, rnd: Random): Any = {
    val n = rnd.nextInt(7) - 3
    val big = if (rnd.nextBoolean()) n.toLong else n.toLong * 1000003L + rnd.nextInt(300)
    t match {
      case BooleanType => rnd.nextBoolean()
      case ByteType => (big % 128).toByte
      case ShortType => (big * 31).toShort
      case IntegerType | DateType | _: YearMonthIntervalType => big.toInt * 257
      case StringType => UTF8String.fromString(Seq.fill(rnd.nextInt(10))("aé\u00ff~"(rnd.nextInt(4))).mkString)
      case BinaryType => Array.fill(rnd.nextInt(10))((rnd.nextInt(5) * 60 - 120).toByte)
      case d: DecimalType => org.apache.spark.sql.types.Decimal(big, d.precision, d.scale)
      case _ => big * 65537L
    }
  }

  private def unsignedCompare(a: Array[Byte], b: Array[Byte]): Int = {
    var i = 0
    while (i < a.length && i < b.length) {
      val c = (a(i) & 0xFF) - (b(i) & 0xFF)
      if (c != 0) return c
      i += 1
    }
    a.length - b.length
  }

  test("orders rows as their key bytes") {
    val rnd = new Random(11)
    for (schema <- 0 until PropertyCases(300)) {
      val width = 1 + rnd.nextInt(4)
      val fields = Seq.fill(width)(types(rnd.nextInt(types.length))).zipWithIndex.map { case (t, i) =>
        AttributeReference(s"k$i", t, nullable = rnd.nextInt(3) == 0)()
      }
      val keyRow = UnsafeProjection.create(fields.zipWithIndex.map { case (f, i) => BoundReference(i, f.dataType, f.nullable) } :+
        Literal(4))
      val input = UnsafeProjection.create(fields.map(_.dataType).toArray)
      val rows = Seq.fill(60) {
        input(InternalRow.fromSeq(fields.map(f => if (f.nullable && rnd.nextInt(4) == 0) null else value(f.dataType, rnd)))).copy()
      }
      val order = KeyBytesOrder.of(fields).get.map(o => o.copy(child = bind(o.child, fields)))
      val orderings = Seq("generated" -> GenerateOrdering.generate(order, Nil), "interpreted" -> new InterpretedOrdering(order))
      val keyBytes = rows.map(r => keyRow(r).copy().getBytes)
      for ((a, aBytes) <- rows.zip(keyBytes); (b, bBytes) <- rows.zip(keyBytes)) {
        val expected = Integer.signum(unsignedCompare(aBytes, bBytes))
        for ((how, ordering) <- orderings) {
          assertResult(expected, s"schema $schema ${fields.map(_.dataType)} ($how): $a vs $b")(
            Integer.signum(ordering.compare(a, b)))
        }
      }
    }
  }

  test("leaves other types in value order") {
    for (t <- Seq(DoubleType, FloatType, DecimalType(30, 2), ArrayType(IntegerType), new StructType().add("a", IntegerType))) {
      assertResult(None, t.toString)(
        KeyBytesOrder.of(Seq(AttributeReference("k", LongType)(), AttributeReference("t", t)())))
    }
    assertResult(None)(KeyBytesOrder.of(Nil))
  }

  private def bind(e: org.apache.spark.sql.catalyst.expressions.Expression, fields: Seq[AttributeReference]) =
    org.apache.spark.sql.catalyst.expressions.BindReferences.bindReference(e, fields)
}
