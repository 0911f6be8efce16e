package org.apache.spark.sql.slidingwindow.execution

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/** The order a streaming trailing window emits a group's rows due in, against Scala's sort. */
class TrailingFramesOrderSuite extends AnyFunSuite {

  test("orders by time then seq like a stable sort") {
    val rnd = new Random(38)
    for (run <- 0 until 500) {
      val n = rnd.nextInt(70)
      val length = n + rnd.nextInt(5) // arrays longer than the rows, as the reader's are
      val times = Array.fill(length)(rnd.nextInt(8).toLong - 3)
      val seqs = Array.fill(length)(if (rnd.nextBoolean()) 7L else rnd.nextInt(5).toLong)
      val expected = (0 until n).sortBy(i => (times(i), seqs(i)))
      assertResult(expected.toArray, s"run $run")(TrailingFramesProcessor.order(times, seqs, n))
    }
  }

  test("orders by group then time then seq like a stable sort") {
    val rnd = new Random(52)
    for (run <- 0 until 500) {
      val n = rnd.nextInt(70)
      val length = n + rnd.nextInt(5)
      val groups = Array.fill(length)(rnd.nextInt(4))
      val times = Array.fill(length)(rnd.nextInt(8).toLong - 3)
      val seqs = Array.fill(length)(if (rnd.nextBoolean()) 7L else rnd.nextInt(5).toLong)
      val expected = (0 until n).sortBy(i => (groups(i), times(i), seqs(i)))
      assertResult(expected.toArray, s"run $run")(TrailingFramesProcessor.order(groups, times, seqs, n))
    }
  }
}
