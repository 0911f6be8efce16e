package org.apache.spark.sql.slidingwindow.windows

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/** The block queue of longs against java.util.ArrayDeque, with blocks small enough to spill. */
class LongQueueSuite extends AnyFunSuite {

  test("random operations match a deque") {
    val rnd = new Random(4)
    for (seq <- 0 until 200) {
      val blockSize = 1 + rnd.nextInt(5)
      val inMemory = 2 + rnd.nextInt(3)
      val queue = new LongQueue(blockSize, inMemory)
      val model = new java.util.ArrayDeque[java.lang.Long]
      var next = rnd.nextInt(100).toLong
      for (op <- 0 until 400) {
        val context = s"sequence $seq (blocks of $blockSize, $inMemory in memory), op $op"
        rnd.nextInt(10) match {
          case 0 | 1 | 2 | 3 | 4 | 5 =>
            (0 until 1 + rnd.nextInt(8)).foreach { _ => queue.add(next); model.addLast(next); next += 1 }
          case 6 | 7 | 8 =>
            (0 until rnd.nextInt(10)).foreach { _ =>
              if (!model.isEmpty) assertResult(model.pollFirst().longValue, context)(queue.removeHead())
            }
          case _ =>
            if (rnd.nextInt(5) == 0) { queue.clear(); model.clear() }
        }
        assertResult(model.size.toLong, context)(queue.size)
        assertResult(model.isEmpty, context)(queue.isEmpty)
        if (!model.isEmpty) assertResult(model.peekFirst().longValue, context)(queue.head)
      }
    }
  }
}
