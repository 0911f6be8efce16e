package org.apache.spark.sql.slidingwindow.aggregation

import scala.util.Random

import org.junit.Assert._
import org.junit.Test

import org.apache.spark.sql.slidingwindow.AggregateFixtures._

/**
 * The chunked, spilling window queue against a plain FIFO model, with chunks small enough that
 * every path is taken: sealing, sealing with a flipped tail, whole chunks skipped, chunks read
 * back from memory and from the spill file.
 */
class ChunkedTwoStacksSuite {

  class Checked(chunkSize: Int, memoryBytes: Long, buffers: AggregateBuffers = standardBuffers())
    extends CheckedQueue(buffers, new ChunkedTwoStacks(buffers, chunkSize, memoryBytes))

  @Test def randomOperationSequences(): Unit = {
    val rnd = new Random(3)
    for (seq <- 0 until 300) {
      val chunk = 2 + rnd.nextInt(5)
      val memory = Seq(0L, 150L, 1L << 20)(rnd.nextInt(3))
      val c = new Checked(chunk, memory)
      var time = rnd.nextInt(1000) - 500L
      for (op <- 0 until 150) {
        rnd.nextInt(10) match {
          case 0 | 1 | 2 | 3 | 4 | 5 =>
            time += 1 + rnd.nextInt(4)
            c.push(time, Seq.fill(1 + rnd.nextInt(2))(Some(rnd.nextInt(100) - 50L)))
          case 6 | 7 =>
            val oldest = c.model.headOption.map(_._1).getOrElse(time)
            c.evictBefore(oldest + rnd.nextInt(6))
          case 8 =>
            c.evictBefore(time - rnd.nextInt(40)) // often skips whole chunks, or nothing
          case _ =>
            if (rnd.nextInt(8) == 0) c.clear()
        }
        c.check(s"sequence $seq (chunk $chunk, memory $memory), op $op")
      }
      c.queue.close()
    }
  }

  @Test def largeWindowSpillsAndComesBack(): Unit = {
    // 10,000 partials in one window with 64 per chunk and 4 KB of memory: most chunks go to
    // disk, and a window sliding over them reads them back in order.
    val c = new Checked(64, 4096)
    (0 until 10000).foreach(t => c.push(t, Seq(Some(t.toLong))))
    c.check("10,000 partials")
    assertTrue(c.queue.spilledBytes > 0)
    for (t <- 1 to 10000 by 997) {
      (10000 + t - 997 max 10000 until 10000 + t).foreach(u => c.push(u, Seq(Some(1L))))
      c.evictBefore(t)
      c.check(s"evicted before $t")
    }
    c.queue.close()
  }
}
