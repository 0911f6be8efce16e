package org.apache.spark.sql.slidingwindow.aggregation

import scala.collection.mutable

import org.junit.Assert._

import org.apache.spark.sql.slidingwindow.AggregateFixtures._

/**
 * Test fixture (not a suite): a window queue next to a plain FIFO model of the (time, rows)
 * elements it should hold; `check` compares the queue's aggregate with the brute-force aggregate
 * of the model's rows, oldest time first (so collect_list, first and last check merge order).
 */
class CheckedQueue[Q <: PartialQueue](val buffers: AggregateBuffers, val queue: Q) {
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
    assertEquals(context, model.isEmpty, queue.isEmpty)
    assertEquals(context, expected(model.toSeq.flatMap(_._2)), result(buffers.evaluate(queue.aggregate())))
  }
}
