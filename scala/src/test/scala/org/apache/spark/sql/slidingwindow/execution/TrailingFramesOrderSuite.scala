package org.apache.spark.sql.slidingwindow.execution

import scala.util.Random

import org.junit.Assert._
import org.junit.Test

/** The order a streaming trailing window emits a group's rows due in, against Scala's sort. */
class TrailingFramesOrderSuite {

  @Test def ordersByTimeThenSeqLikeAStableSort(): Unit = {
    val rnd = new Random(38)
    for (run <- 0 until 500) {
      val n = rnd.nextInt(70)
      val length = n + rnd.nextInt(5) // arrays longer than the rows, as the reader's are
      val times = Array.fill(length)(rnd.nextInt(8).toLong - 3)
      val seqs = Array.fill(length)(if (rnd.nextBoolean()) 7L else rnd.nextInt(5).toLong)
      val expected = (0 until n).sortBy(i => (times(i), seqs(i)))
      assertArrayEquals(s"run $run", expected.toArray, TrailingFramesProcessor.order(times, seqs, n))
    }
  }

  @Test def ordersByGroupThenTimeThenSeqLikeAStableSort(): Unit = {
    val rnd = new Random(52)
    for (run <- 0 until 500) {
      val n = rnd.nextInt(70)
      val length = n + rnd.nextInt(5)
      val groups = Array.fill(length)(rnd.nextInt(4))
      val times = Array.fill(length)(rnd.nextInt(8).toLong - 3)
      val seqs = Array.fill(length)(if (rnd.nextBoolean()) 7L else rnd.nextInt(5).toLong)
      val expected = (0 until n).sortBy(i => (groups(i), times(i), seqs(i)))
      assertArrayEquals(s"run $run", expected.toArray, TrailingFramesProcessor.order(groups, times, seqs, n))
    }
  }
}
