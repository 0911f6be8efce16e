package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.sql.catalyst.InternalRow

/**
 * A FIFO of timestamped partial aggregates that answers "the aggregate of everything inside" in
 * O(1) amortized merges, whatever it holds: the Two-Stacks queue.
 *
 * Elements are pushed newest-last and evicted oldest-first. The newer elements sit in the back
 * list, with one running aggregate of all of them; the older ones sit in the front stack, each with
 * the aggregate of itself and every newer element of the front. When the front runs dry the back
 * is flipped into it, computing those suffix aggregates once. Each element is therefore merged a
 * constant number of times, and a query is one merge of front-top and back.
 *
 * Merges always keep time order (older on the left), so order-sensitive aggregates such as
 * collect_list, first and last see their rows oldest first.
 */
final class TwoStacks(buffers: AggregateBuffers) extends PartialQueue {

  // Back: newest elements, in push order, with their running aggregate (a working buffer).
  private var backTimes = new Array[Long](16)
  private var backPartials = new Array[InternalRow](16)
  private var backSize = 0
  private val backAggregate: InternalRow = buffers.newBuffer()

  // Front: older elements as a stack; index frontSize - 1 is the oldest element.
  private var frontTimes = new Array[Long](16)
  private var frontAggregates = new Array[InternalRow](16)
  private var frontSize = 0

  // Scratch working buffers, reused: one for flips, one for answers.
  private val flipBuffer: InternalRow = buffers.newBuffer()
  private val answer: InternalRow = buffers.newBuffer()

  override def isEmpty: Boolean = backSize == 0 && frontSize == 0
  def size: Int = backSize + frontSize

  /** Time of the oldest element. */
  def oldestTime: Long = {
    if (frontSize == 0) backTimes(0) else frontTimes(frontSize - 1)
  }

  /** Appends the frozen partial of the rows at `time`, newer than every element. */
  override def push(time: Long, partial: InternalRow): Unit = {
    if (backSize == backTimes.length) {
      backTimes = java.util.Arrays.copyOf(backTimes, backSize * 2)
      backPartials = java.util.Arrays.copyOf(backPartials, backSize * 2)
    }
    backTimes(backSize) = time
    backPartials(backSize) = partial
    backSize += 1
    buffers.merge(backAggregate, partial)
  }

  /** Removes every element older than `time`. */
  override def evictBefore(time: Long): Unit = {
    while (!isEmpty && oldestTime < time) evictOldest()
  }

  /** Removes the oldest element. */
  def evictOldest(): Unit = {
    if (frontSize == 0) flip()
    frontSize -= 1
    frontAggregates(frontSize) = null
  }

  private def flip(): Unit = {
    if (frontTimes.length < backSize) {
      frontTimes = new Array[Long](backTimes.length)
      frontAggregates = new Array[InternalRow](backTimes.length)
    }
    // Newest first, so that the oldest ends on top; suffix = element, then everything newer.
    var suffix: InternalRow = null
    var i = backSize - 1
    while (i >= 0) {
      suffix =
        if (suffix == null) backPartials(i)
        else {
          buffers.assign(flipBuffer, backPartials(i))
          buffers.merge(flipBuffer, suffix)
          buffers.freeze(flipBuffer)
        }
      frontTimes(frontSize) = backTimes(i)
      frontAggregates(frontSize) = suffix
      frontSize += 1
      backPartials(i) = null
      i -= 1
    }
    backSize = 0
    buffers.initialize(backAggregate)
  }

  /**
   * The aggregate of every element, oldest first, to evaluate (never to modify): the back's
   * running aggregate or the front's top when the other side is empty, else one merge of the two.
   * Valid until the queue changes.
   */
  override def aggregate(): InternalRow = {
    if (frontSize == 0) {
      backAggregate // the back's running aggregate is the whole queue
    } else if (backSize == 0 && buffers.partialsEvaluable) {
      frontAggregates(frontSize - 1)
    } else {
      buffers.assign(answer, frontAggregates(frontSize - 1))
      if (backSize > 0) buffers.merge(answer, buffers.asPartial(backAggregate))
      answer
    }
  }

  /** Merges the aggregate of every element into a working buffer, after what it holds. */
  def mergeInto(buffer: InternalRow): Unit = {
    if (frontSize > 0) buffers.merge(buffer, frontAggregates(frontSize - 1))
    if (backSize > 0) buffers.merge(buffer, buffers.asPartial(backAggregate))
  }

  /** Number of elements in the back, pushed since the last flip. */
  def backCount: Int = backSize

  /**
   * Removes the back (the elements pushed since the last flip) and hands it over: `f` gets
   * their times, partials, count and the frozen aggregate of them all. The front stays.
   */
  def takeBack[T](f: (Array[Long], Array[InternalRow], Int, InternalRow) => T): T = {
    val total = buffers.freeze(backAggregate)
    val result = f(backTimes, backPartials, backSize, total)
    java.util.Arrays.fill(backPartials.asInstanceOf[Array[AnyRef]], 0, backSize, null)
    backSize = 0
    buffers.initialize(backAggregate)
    result
  }

  override def clear(): Unit = {
    java.util.Arrays.fill(backPartials.asInstanceOf[Array[AnyRef]], 0, backSize, null)
    java.util.Arrays.fill(frontAggregates.asInstanceOf[Array[AnyRef]], 0, frontSize, null)
    backSize = 0
    frontSize = 0
    buffers.initialize(backAggregate)
  }
}
