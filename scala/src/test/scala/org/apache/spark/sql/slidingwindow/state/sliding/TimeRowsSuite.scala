package org.apache.spark.sql.slidingwindow.state
package sliding

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

/**
 * [[TimeRows]] against a sorted map, over random sequences of the calls a group's record makes:
 * puts (new times at either end or between, and times already held), removes, range removes
 * (rows moved out to a chunk) and position searches.
 */
class TimeRowsSuite extends AnyFunSuite {
  test("behaves as a sorted map") {
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
            assertResult(keys.indexWhere(_ >= time) match {
              case -1 => keys.size
              case i => i
            }, s"sequence $seq: ceiling of $time")(rows.ceilingIndex(time))
            assertResult(keys.indexWhere(_ > time) match {
              case -1 => keys.size
              case i => i
            }, s"sequence $seq: higher of $time")(rows.higherIndex(time))
            assertResult(expected.get(time).orNull, s"sequence $seq: get $time")(rows.get(time))
        }
        assertResult(expected.size, s"sequence $seq: size")(rows.size)
        assertResult(expected.keys.toSeq, s"sequence $seq: times")(rows.timesArray.toSeq)
        for (i <- 0 until rows.size) assert(expected(rows.timeAt(i)) eq rows.valueAt(i))
      }
    }
  }

  /**
   * Rows kept as their buffers' words (read from a packed section) among rows put as values,
   * moved by puts and removes: each becomes, when read, the value that holds its buffer alone,
   * and keeps its words until then.
   */
  test("rows kept as words") {
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
        assertResult(expected.keys.toSeq, s"sequence $seq: times")(rows.timesArray.toSeq)
        for (i <- 0 until rows.size if rnd.nextInt(4) == 0 || i == rows.size - 1) {
          expected(rows.timeAt(i)) match {
            case Right(row) => assert(row eq rows.valueAt(i))
            case Left(words) =>
              if (rows.keptAsWords(i)) {
                assertResult(words.toSeq)((0 until 3).map(rows.bufferWord(i, _)))
                val copied = new Array[Long](3)
                rows.copyWords(i, copied)
                assertResult(words.toSeq)(copied.toSeq)
              }
              val value = rows.valueAt(i)
              assert(!rows.keptAsWords(i))
              assertResult(fields)(value.numFields)
              assert(!value.isNullAt(0))
              for (f <- 1 until fields) assert(value.isNullAt(f))
              val offsetAndSize = value.getLong(0)
              assertResult(24)(offsetAndSize.toInt)
              assertResult(words.toSeq)((0 until 3).map(w => Platform.getLong(value.getBaseObject,
                value.getBaseOffset + (offsetAndSize >>> 32) + 8L * w)))
          }
        }
      }
    }
  }

  test("extreme times") {
    val rows = new TimeRows(1)
    rows.put(Long.MaxValue, new UnsafeRow(1))
    rows.put(Long.MinValue, new UnsafeRow(1))
    assertResult(0)(rows.ceilingIndex(Long.MinValue))
    assertResult(1)(rows.higherIndex(Long.MinValue))
    assertResult(1)(rows.ceilingIndex(Long.MaxValue))
    assertResult(2)(rows.higherIndex(Long.MaxValue))
  }
}
