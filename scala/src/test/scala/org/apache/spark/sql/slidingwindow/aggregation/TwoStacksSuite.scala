package org.apache.spark.sql.slidingwindow.aggregation

import scala.util.Random

import org.junit.Assert._
import org.junit.Test

import org.apache.spark.sql.slidingwindow.AggregateFixtures._

/**
 * Two-Stacks against a plain FIFO model: after every push, eviction and clear, the queue's
 * aggregate equals the brute-force aggregate of the rows still in the model, oldest time first
 * (so collect_list, first and last also check the merge order across flips).
 */
class TwoStacksSuite {

  class Checked(buffers: AggregateBuffers = standardBuffers())
    extends CheckedQueue(buffers, new TwoStacks(buffers)) {
    override def check(context: => String): Unit = {
      super.check(context)
      assertEquals(context, model.size, queue.size)
      if (model.nonEmpty) assertEquals(context, model.head._1, queue.oldestTime)
    }
  }

  @Test def emptyQueue(): Unit = {
    val c = new Checked()
    c.check("new queue")
    assertEquals(Result(0, None, None, Nil, None, None), result(c.buffers.evaluate(c.queue.aggregate())))
    c.evictBefore(100)
    c.check("evicting from an empty queue")
  }

  @Test def pushThenEvictInOrder(): Unit = {
    val c = new Checked()
    (1 to 10).foreach(t => c.push(t, Seq(Some(t.toLong), Some(10L * t))))
    c.check("after ten pushes")
    // First eviction flips the whole back; later ones pop the front, one element at a time.
    (2 to 11).foreach { t => c.evictBefore(t); c.check(s"evicted before $t") }
    assertTrue(c.queue.isEmpty)
  }

  @Test def evictionDoesNotRemoveEqualTime(): Unit = {
    val c = new Checked()
    c.push(5, Seq(Some(1L)))
    c.push(8, Seq(Some(2L)))
    c.evictBefore(8)
    c.check("evictBefore is strict")
    assertEquals(8L, c.queue.oldestTime)
  }

  @Test def slidingWidthAcrossManyFlips(): Unit = {
    // A window of constant width sliding one step at a time: the front runs dry (and the back
    // flips) every `width` steps, with the back holding the newer part each time we query.
    for (width <- Seq(1, 2, 3, 7, 16, 17, 40)) {
      val c = new Checked()
      for (t <- 0 until 300) {
        c.push(t, Seq(Some(t.toLong), None).take(1 + t % 2))
        c.evictBefore(t - width + 1)
        c.check(s"width $width, time $t")
      }
    }
  }

  @Test def randomOperationSequences(): Unit = {
    val rnd = new Random(2)
    for (seq <- 0 until 200) {
      val c = new Checked()
      var time = rnd.nextInt(1000) - 500L
      for (op <- 0 until 200) {
        rnd.nextInt(10) match {
          case 0 | 1 | 2 | 3 | 4 =>
            time += 1 + rnd.nextInt(4)
            c.push(time, Seq.fill(1 + rnd.nextInt(3))(if (rnd.nextInt(5) == 0) None else Some(rnd.nextInt(100) - 50L)))
          case 5 | 6 | 7 =>
            val oldest = c.model.headOption.map(_._1).getOrElse(time)
            c.evictBefore(oldest + rnd.nextInt(8))
          case 8 =>
            c.evictBefore(time - rnd.nextInt(20)) // often evicts nothing or a few
          case _ =>
            if (rnd.nextInt(10) == 0) c.clear() // and keep using it
        }
        c.check(s"sequence $seq, op $op")
      }
    }
  }

  @Test def aggregateDoesNotDisturbTheQueue(): Unit = {
    // aggregate() merges the back's running aggregate; calling it twice must give the same.
    val c = new Checked()
    (1 to 5).foreach(t => c.push(t, Seq(Some(t.toLong))))
    c.evictBefore(2)
    (6 to 8).foreach(t => c.push(t, Seq(Some(t.toLong))))
    c.check("first query")
    c.check("second query")
    c.push(9, Seq(Some(9L)))
    c.check("after a push following queries")
  }

  @Test def growsPastInitialCapacity(): Unit = {
    val c = new Checked()
    (0 until 100).foreach(t => c.push(t, Seq(Some(1L))))
    c.check("100 elements in the back")
    c.evictBefore(1) // flip of 100 elements
    (100 until 300).foreach(t => c.push(t, Seq(Some(2L))))
    c.check("99 in the front, 200 in the back")
    c.evictBefore(150) // drains the front, flips the 200
    c.check("after a second large flip")
  }
}
