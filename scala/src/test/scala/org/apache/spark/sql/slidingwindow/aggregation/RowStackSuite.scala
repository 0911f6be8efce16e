package org.apache.spark.sql.slidingwindow.aggregation

import scala.util.Random

import org.junit.Assert._
import org.junit.Test

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.types.{DataType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.sql.slidingwindow.PropertyCases

/** The compact stack against a plain list, with chunk and memory sizes that force every path. */
class RowStackSuite {
  private val types = Array[DataType](LongType, StringType)
  private val project = UnsafeProjection.create(types)

  /** A row of variable size: (n, "x" * (n % 37)), through a reused projection as callers do. */
  private def row(n: Long): InternalRow =
    project(InternalRow(n, UTF8String.fromString("x" * (n % 37).toInt)))

  private def checkTop(s: RowStack, model: List[(Long, Long)], context: String): Unit = {
    assertEquals(context, model.isEmpty, s.isEmpty)
    assertEquals(context, model.size.toLong, s.size)
    model.headOption.foreach { case (t, n) =>
      assertEquals(context, t, s.topTime)
      assertEquals(context, n, s.top.getLong(0))
      assertEquals(context, "x" * (n % 37).toInt, s.top.getUTF8String(1).toString)
    }
  }

  @Test def randomPushesAndPops(): Unit = {
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

  @Test def spillsBeyondItsMemoryAndReadsBackInOrder(): Unit = {
    val s = new RowStack(2, 256, 1024)
    (0 until 5000).foreach(i => s.push(i, row(i)))
    assertTrue("spilled", s.spilledBytes > 0)
    for (i <- 4999 to 0 by -1) {
      assertEquals(i.toLong, s.topTime)
      assertEquals(i.toLong, s.top.getLong(0))
      s.pop()
    }
    assertTrue(s.isEmpty)
    assertEquals("the file is emptied once every record is read", 0L, s.spilledBytes)
    // And it is usable again.
    s.push(7, row(7))
    assertEquals(7L, s.top.getLong(0))
    s.close()
  }
}
