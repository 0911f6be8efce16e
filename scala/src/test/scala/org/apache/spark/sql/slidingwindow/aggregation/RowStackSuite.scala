package org.apache.spark.sql.slidingwindow.aggregation

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.types.{DataType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.sql.slidingwindow.PropertyCases

/** The compact stack against a plain list, with chunk and memory sizes that force every path. */
class RowStackSuite extends AnyFunSuite {
  private val types = Array[DataType](LongType, StringType)
  private val project = UnsafeProjection.create(types)

  /** A row of variable size: (n, "x" * (n % 37)), through a reused projection as callers do. */
  private def row(n: Long): InternalRow =
    project(InternalRow(n, UTF8String.fromString("x" * (n % 37).toInt)))

  private def checkTop(s: RowStack, model: List[(Long, Long)], context: String): Unit = {
    assertResult(model.isEmpty, context)(s.isEmpty)
    assertResult(model.size.toLong, context)(s.size)
    model.headOption.foreach { case (t, n) =>
      assertResult(t, context)(s.topTime)
      assertResult(n, context)(s.top.getLong(0))
      assertResult("x" * (n % 37).toInt, context)(s.top.getUTF8String(1).toString)
    }
  }

  test("random pushes and pops") {
    val rnd = new Random(17)
    for (seq <- 0 until PropertyCases(200)) {
      val chunk = 64 + rnd.nextInt(300)
      val memory = Seq(0L, 200L, 5000L, 1L << 20)(rnd.nextInt(4))
      val s = new RowStack(2, chunk, memory)
      var model = List.empty[(Long, Long)]
      for (op <- 0 until 300) {
        rnd.nextInt(9) match {
          case 0 | 1 | 2 | 3 | 4 =>
            val n = rnd.nextInt(1000).toLong
            s.push(op, row(n))
            model = (op.toLong, n) :: model
          case 8 if rnd.nextInt(10) == 0 =>
            s.clear()
            model = Nil
          case _ =>
            if (model.nonEmpty) { s.pop(); model = model.tail }
        }
        checkTop(s, model, s"sequence $seq (chunk $chunk, memory $memory), op $op")
      }
      s.close()
    }
  }

  test("spills beyond its memory and reads back in order") {
    val s = new RowStack(2, 256, 1024)
    (0 until 5000).foreach(i => s.push(i, row(i)))
    assert(s.spilledBytes > 0, "spilled")
    for (i <- 4999 to 0 by -1) {
      assertResult(i.toLong)(s.topTime)
      assertResult(i.toLong)(s.top.getLong(0))
      s.pop()
    }
    assert(s.isEmpty)
    assertResult(0L, "the file is emptied once every record is read")(s.spilledBytes)
    // And it is usable again.
    s.push(7, row(7))
    assertResult(7L)(s.top.getLong(0))
    s.close()
  }
}
