package org.apache.spark.sql.slidingwindow.state
package sliding

import scala.util.Random

import org.junit.Assert._
import org.junit.Test

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

/**
 * [[TimeRows]] against a sorted map, over random sequences of the calls a group's record makes:
 * puts (new times at either end or between, and times already held), removes, range removes
 * (rows moved out to a chunk) and position searches.
 */
class TimeRowsSuite {
  @Test def behavesAsASortedMap(): Unit = {
    val rnd = new Random(11)
    for (seq <- 0 until 500) {
      val rows = new TimeRows(1)
      val expected = scala.collection.mutable.TreeMap.empty[Long, UnsafeRow]
      val span = 1 + rnd.nextInt(60)
      for (_ <- 0 until rnd.nextInt(200)) {
        val time = (rnd.nextInt(span) - span / 2).toLong
        rnd.nextInt(10) match {
          case 0 | 1 | 2 | 3 =>
            val row = new UnsafeRow(1)
            rows.put(time, row)
            expected(time) = row
          case 4 | 5 =>
            rows.remove(time)
            expected -= time
          case 6 if rows.size > 0 =>
            val from = rnd.nextInt(rows.size)
            val until = from + rnd.nextInt(rows.size - from + 1)
            expected.keys.slice(from, until).toList.foreach(expected -= _)
            rows.removeRange(from, until)
          case 7 =>
            rows.clear()
            expected.clear()
          case _ =>
            val keys = expected.keys.toIndexedSeq
            assertEquals(s"sequence $seq: ceiling of $time", keys.indexWhere(_ >= time) match {
              case -1 => keys.size
              case i => i
            }, rows.ceilingIndex(time))
            assertEquals(s"sequence $seq: higher of $time", keys.indexWhere(_ > time) match {
              case -1 => keys.size
              case i => i
            }, rows.higherIndex(time))
            assertEquals(s"sequence $seq: get $time", expected.get(time).orNull, rows.get(time))
        }
        assertEquals(s"sequence $seq: size", expected.size, rows.size)
        assertEquals(s"sequence $seq: times", expected.keys.toSeq, rows.timesArray.toSeq)
        for (i <- 0 until rows.size) assertSame(expected(rows.timeAt(i)), rows.valueAt(i))
      }
    }
  }

  /**
   * Rows kept as their buffers' words (read from a packed section) among rows put as values,
   * moved by puts and removes: each becomes, when read, the value that holds its buffer alone,
   * and keeps its words until then.
   */
  @Test def rowsKeptAsWords(): Unit = {
    val rnd = new Random(12)
    val fields = 4
    for (seq <- 0 until 300) {
      val rows = new TimeRows(fields)
      val expected = scala.collection.mutable.TreeMap.empty[Long, Either[Array[Long], UnsafeRow]]
      for (_ <- 0 until rnd.nextInt(100)) {
        val time = rnd.nextInt(50).toLong
        rnd.nextInt(6) match {
          case 0 | 1 if !expected.contains(time) =>
            val words = Array.fill(3)(rnd.nextLong())
            rows.appendWords(time, Array(0L) ++ words, 1, 3)
            expected(time) = Left(words)
          case 2 =>
            val row = new UnsafeRow(fields)
            rows.put(time, row)
            expected(time) = Right(row)
          case 3 =>
            rows.remove(time)
            expected -= time
          case _ =>
        }
        assertEquals(s"sequence $seq: times", expected.keys.toSeq, rows.timesArray.toSeq)
        for (i <- 0 until rows.size if rnd.nextInt(4) == 0 || i == rows.size - 1) {
          expected(rows.timeAt(i)) match {
            case Right(row) => assertSame(row, rows.valueAt(i))
            case Left(words) =>
              if (rows.keptAsWords(i)) {
                assertEquals(words.toSeq, (0 until 3).map(rows.bufferWord(i, _)))
                val copied = new Array[Long](3)
                rows.copyWords(i, copied)
                assertEquals(words.toSeq, copied.toSeq)
              }
              val value = rows.valueAt(i)
              assertFalse(rows.keptAsWords(i))
              assertEquals(fields, value.numFields)
              assertFalse(value.isNullAt(0))
              for (f <- 1 until fields) assertTrue(value.isNullAt(f))
              val offsetAndSize = value.getLong(0)
              assertEquals(24, offsetAndSize.toInt)
              assertEquals(words.toSeq, (0 until 3).map(w => Platform.getLong(value.getBaseObject,
                value.getBaseOffset + (offsetAndSize >>> 32) + 8L * w)))
          }
        }
      }
    }
  }

  @Test def extremeTimes(): Unit = {
    val rows = new TimeRows(1)
    rows.put(Long.MaxValue, new UnsafeRow(1))
    rows.put(Long.MinValue, new UnsafeRow(1))
    assertEquals(0, rows.ceilingIndex(Long.MinValue))
    assertEquals(1, rows.higherIndex(Long.MinValue))
    assertEquals(1, rows.ceilingIndex(Long.MaxValue))
    assertEquals(2, rows.higherIndex(Long.MaxValue))
  }
}
