package org.apache.spark.sql.slidingwindow.execution

import scala.util.Random

import org.junit.Assert._
import org.junit.Test

/** The order a streaming trailing window reads a group's kept rows in, against Scala's sort. */
class TrailingRowsOrderSuite {

  @Test def ordersByTimeThenSeqLikeAStableSort(): Unit = {
    val rnd = new Random(38)
    for (run <- 0 until 500) {
      val n = rnd.nextInt(70)
      val length = n + rnd.nextInt(5) // arrays longer than the rows, as the reader's are
      val times = Array.fill(length)(rnd.nextInt(8).toLong - 3)
      val seqs = Array.fill(length)(if (rnd.nextBoolean()) 7L else rnd.nextInt(5).toLong)
      val expected = (0 until n).sortBy(i => (times(i), seqs(i)))
      assertArrayEquals(s"run $run", expected.toArray, TrailingRowsProcessor.order(times, seqs, n))
    }
  }
}
