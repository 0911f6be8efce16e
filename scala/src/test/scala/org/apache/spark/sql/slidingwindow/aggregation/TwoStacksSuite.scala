package org.apache.spark.sql.slidingwindow.aggregation

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.slidingwindow.AggregateFixtures._
import org.apache.spark.sql.slidingwindow.PropertyCases

/**
 * Two-Stacks against a plain FIFO model: after every push, eviction and clear, the queue's
 * aggregate equals the brute-force aggregate of the rows still in the model, oldest time first
 * (so collect_list, first and last also check the merge order across flips). Every test runs
 * with typed aggregates (general path) and declarative ones (generated fast paths, with the
 * aggregates built one element at a time or by balanced merges), and with stacks in memory or
 * with tiny chunks and no memory (everything spills to disk), and as kept in a state store and as
 * in memory (which flips the elements pushed into it while empty when its aggregate is read).
 */
class TwoStacksSuite extends AnyFunSuite {

  private val confs = Seq(WindowBufferConf.default, WindowBufferConf(64, 0L), WindowBufferConf(100, 400L))

  // Every aggregate set with its default queue, and the declarative one with balanced merges too.
  private val variants: Seq[(AggregateSet, Option[Boolean])] =
    aggregateSets.map((_, None)) :+ ((declarativeSet, Some(true)))

  // One set of buffers per aggregate set, shared by the queues one after the other as an
  // operator's groups share them: thousands of queues, the code generated once.
  private val buffersOf = aggregateSets.map(s => s -> s.buffers()).toMap

  private def forEachQueue(f: CheckedQueue => Unit): Unit =
    for ((set, balanced) <- variants; conf <- confs; flipOnRead <- Seq(false, true)) {
      val c = new CheckedQueue(set, conf, balanced, flipOnRead, Some(buffersOf(set)))
      try f(c) finally c.close()
    }

  private def name(c: CheckedQueue) =
    s"${c.set.name}${if (c.balancedMerges) ", balanced" else ""}${if (c.flipOnRead) ", flips on read" else ""}"

  test("empty queue")(forEachQueue { c =>
    c.check("new queue")
    assertResult(c.set.expect(Nil))(c.set.evaluateBothWays(c.buffers, c.queue)._1)
    c.evictBefore(100)
    c.check("evicting from an empty queue")
  })

  test("push then evict in order")(forEachQueue { c =>
    (1 to 10).foreach(t => c.push(t, Seq(Some(t.toLong), Some(10L * t))))
    c.check("after ten pushes")
    // First eviction flips the whole back; later ones pop the front, one element at a time.
    (2 to 11).foreach { t => c.evictBefore(t); c.check(s"${name(c)}: evicted before $t") }
    assert(c.queue.isEmpty)
  })

  test("eviction does not remove equal time")(forEachQueue { c =>
    c.push(5, Seq(Some(1L)))
    c.push(8, Seq(Some(2L)))
    c.evictBefore(8)
    c.check("evictBefore is strict")
    assertResult(1L)(c.front.size + c.back.size)
  })

  test("sliding width across many flips")(forEachQueue { c =>
    // A window of constant width sliding one step at a time: the front runs dry (and the back
    // flips) every `width` steps, with the back holding the newer part each time we query.
    for (width <- Seq(1, 2, 3, 7, 16, 17, 40)) {
      c.clear()
      for (t <- 0 until 300) {
        c.push(t, Seq(Some(t.toLong), None).take(1 + t % 2))
        c.evictBefore(t - width + 1)
        c.check(s"${name(c)}: width $width, time $t")
      }
    }
  })

  test("random operation sequences") {
    val rnd = new Random(2)
    for (seq <- 0 until PropertyCases(120)) forEachQueue { c =>
      var time = rnd.nextInt(1000) - 500L
      // Half the sequences read the aggregate after some operations only: pushes pile up unmerged.
      val checkEvery = if (seq % 2 == 0) 1 else 2 + rnd.nextInt(8)
      for (op <- 0 until 150) {
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
        if (op % checkEvery == 0 || op == 149) c.check(s"${name(c)}: sequence $seq, op $op")
      }
    }
  }

  test("aggregate does not disturb the queue")(forEachQueue { c =>
    // Asking for the aggregate reads the back's running aggregate; twice must give the same.
    (1 to 5).foreach(t => c.push(t, Seq(Some(t.toLong))))
    c.evictBefore(2)
    (6 to 8).foreach(t => c.push(t, Seq(Some(t.toLong))))
    c.check("first query")
    c.check("second query")
    c.push(9, Seq(Some(9L)))
    c.check("after a push following queries")
  })

  test("many pushes between reads")(forEachQueue { c =>
    // Pushes into an empty queue (a queue that flips on read leaves them out of the back's
    // aggregate), then behind a front that holds elements; with no memory, most of them are read
    // back from spilled chunks.
    (1 to 1000).foreach(t => c.push(t, Seq(Some(t.toLong), Some(-t.toLong))))
    c.check(s"${name(c)}: 1,000 pushes into an empty queue")
    c.evictBefore(990)
    (1001 to 2000).foreach(t => c.push(t, Seq(Some(t.toLong))))
    c.check(s"${name(c)}: 1,000 pushes behind a front")
    c.evictBefore(1001)
    (2001 to 2010).foreach(t => c.push(t, Seq(Some(t.toLong))))
    c.evictBefore(1500)
    c.check(s"${name(c)}: the front ran dry, pushes, then an eviction")
  })

  test("large window spills and comes back") {
    // 10,000 partials in one window with 4 KB of memory: most chunks of both stacks go to disk,
    // and a window sliding over them reads them back in order.
    for ((set, balanced) <- variants) {
      val c = new CheckedQueue(set, WindowBufferConf(512, 4096), balanced)
      (0 until 10000).foreach(t => c.push(t, Seq(Some(t.toLong))))
      c.check("10,000 partials")
      assert(c.back.spilledBytes > 0)
      for (t <- 1 to 10000 by 997) {
        (10000 + t - 997 max 10000 until 10000 + t).foreach(u => c.push(u, Seq(Some(1L))))
        c.evictBefore(t)
        if (t > 1) assert(c.front.spilledBytes > 0)
        c.check(s"${set.name}: evicted before $t")
      }
      c.close()
    }
  }
}
