package org.apache.spark.sql.slidingwindow.aggregation

import scala.collection.mutable

import org.scalatest.Assertions._

import org.apache.spark.sql.slidingwindow.AggregateFixtures._

/**
 * Test fixture (not a suite): a Two-Stacks queue next to a plain FIFO model of the (time, rows)
 * elements it should hold; `check` compares the queue's aggregate, evaluated by the buffers and
 * as the output row of a window, with the brute-force aggregate of the model's rows, oldest time
 * first (so collect_list, first and last check merge order). `balanced` makes the queue build its
 * aggregates with balanced merges ([[MergeCounter]]) whatever the buffers' types; by default the
 * buffers decide. `flipOnRead` is the queue's (a queue in memory leaves the elements pushed into
 * it while empty to a flip, which the next `check` makes). `buffers` may be shared by queues used
 * one after the other, as an operator's are by its groups (building them generates code).
 */
class CheckedQueue(
    val set: AggregateSet,
    conf: WindowBufferConf = WindowBufferConf.default,
    balanced: Option[Boolean] = None,
    val flipOnRead: Boolean = false,
    sharedBuffers: Option[AggregateBuffers] = None) {
  val buffers: AggregateBuffers = sharedBuffers.getOrElse(set.buffers())
  val front: RowStack = conf.newStack(buffers.numBufferFields)
  val back: RowStack = conf.newStack(buffers.numBufferFields)
  val queue = new TwoStacks(buffers, front, back, balanced.getOrElse(buffers.balancedMerges), flipOnRead)
  val balancedMerges: Boolean = balanced.getOrElse(buffers.balancedMerges)
  val model = mutable.Queue.empty[(Long, Seq[Row])]
  private var nextId = 0

  def push(time: Long, values: Seq[Option[Long]]): Unit = {
    val rows = values.map { v => nextId += 1; Row(time, v, nextId) }
    queue.push(time, partialOf(buffers, rows))
    model.enqueue((time, rows))
  }

  def evictBefore(time: Long): Unit = {
    queue.evictBefore(time)
    while (model.nonEmpty && model.head._1 < time) model.dequeue()
  }

  def clear(): Unit = { queue.clear(); model.clear() }

  def check(context: => String): Unit = {
    assertResult(model.isEmpty, context)(queue.isEmpty)
    assertResult(model.size.toLong, context)(front.size + back.size)
    val expected = set.expect(model.toSeq.flatMap(_._2))
    val (evaluated, written) = set.evaluateBothWays(buffers, queue)
    assertResult(expected, s"evaluated, $context")(evaluated)
    assertResult(expected, s"output row, $context")(written)
  }

  def close(): Unit = { front.close(); back.close() }
}
