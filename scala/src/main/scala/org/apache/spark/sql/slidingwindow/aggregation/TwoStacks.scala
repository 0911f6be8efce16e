package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.sql.catalyst.InternalRow

/**
 * A FIFO of timestamped partial aggregates that answers "the aggregate of everything inside" in
 * O(1) amortized merges, whatever it holds: the Two-Stacks queue.
 *
 * Elements are pushed newest-last and evicted oldest-first. The newer elements sit in the `back`
 * stack, with one running aggregate of all of them; the older ones sit in the `front` stack, each
 * with the aggregate of itself and every newer element of the front (its suffix), the oldest on
 * top. When the front runs dry the back is flipped into it, computing those suffixes once. Each
 * element is therefore merged a constant number of times, and the aggregate is two parts: the
 * front's top and the back's running aggregate.
 *
 * Merges always keep time order (older on the left), so order-sensitive aggregates such as
 * collect_list, first and last see their rows oldest first. Where the elements live is up to the
 * two stacks ([[RowStack]]: compact, bounded memory).
 *
 * With `flipOnRead` (a queue in memory), the elements pushed into an empty queue are not merged
 * into the back's aggregate: the next read of the aggregate (or eviction) flips them, and they are
 * merged once, into their suffixes. A sweep that starts with many pushes before it reads, as a
 * stream's update mode does to emit the windows that a new row changed, merges each element once
 * instead of twice. Otherwise the queue keeps its usual rhythm (a batch sweep reads after nearly
 * every push, and flips the back when the front runs dry). A queue kept in a state store does not
 * flip on read: a flip writes the front's suffixes to the store.
 *
 * With `balanced` (buffers whose merges round, [[AggregateBuffers.balancedMerges]]), the back's
 * aggregate and the front's suffixes are built by [[MergeCounter]]s, from balanced merges, instead
 * of one element at a time: the same aggregates, two merges per element amortized instead of one,
 * with rounding errors that do not grow with the number of elements.
 */
final class TwoStacks(
    buffers: AggregateBuffers,
    front: PartialStack,
    back: PartialStack,
    balanced: Boolean,
    flipOnRead: Boolean = false)
  extends WindowContents {

  def this(buffers: AggregateBuffers, front: PartialStack, back: PartialStack) =
    this(buffers, front, back, buffers.balancedMerges)

  // The aggregate of the back's elements (a working buffer, or with `balanced`, the back counter's
  // total), and the time of its oldest one. The back stack itself is only read by a flip (a stack
  // kept in a state store loads it then).
  private val backAggregate: InternalRow = buffers.newBuffer()
  private val backCounter = if (balanced) new MergeCounter(buffers, newerLast = true) else null
  private val flipCounter = if (balanced) new MergeCounter(buffers, newerLast = false) else null
  private var backOldest = 0L
  private var backHasElements = false
  // With `flipOnRead`: the back holds the elements pushed since the queue was empty, not merged
  // into `backAggregate`; the next read flips them.
  private var backStale = false

  def isEmpty: Boolean = front.isEmpty && !backHasElements

  /** Appends the frozen partial of the rows at `time`, newer than every element. */
  def push(time: Long, partial: InternalRow): Unit = {
    if (!backHasElements) {
      backStale = flipOnRead && front.isEmpty
      backOldest = time
      backHasElements = true
    }
    back.push(time, partial)
    if (!backStale) { // else merged by the flip
      if (balanced) backCounter.add(partial) else buffers.merge(backAggregate, partial)
    }
  }

  /** Removes every element older than `time`. */
  def evictBefore(time: Long): Unit = {
    var more = true
    while (more) {
      if (!front.isEmpty) {
        if (front.topTime < time) front.pop() else more = false
      } else if (backHasElements && backOldest < time) {
        flip()
      } else {
        more = false
      }
    }
  }

  /**
   * Moves the back into the empty front, newest first: suffix(e) = e, then suffix(next) (with
   * `balanced`, the flip counter's total after adding e).
   */
  private def flip(): Unit = {
    while (!back.isEmpty) {
      val partial = back.top
      val suffix =
        if (balanced) flipCounter.add(partial)
        else if (front.isEmpty) partial
        else buffers.mergePartials(partial, front.top)
      front.push(back.topTime, suffix)
      back.pop()
    }
    if (balanced) flipCounter.clear()
    resetBack()
  }

  private def resetBack(): Unit = {
    if (balanced) backCounter.clear() else buffers.initialize(backAggregate)
    backStale = false
    backHasElements = false
  }

  /** The aggregate of the back's elements (the empty aggregate when there are none). */
  private def backTotal: InternalRow = {
    assert(!backStale, "a queue that flips on read reads its back's aggregate after a flip only")
    if (balanced && backHasElements) backCounter.total else backAggregate
  }

  /** The front's top and the back's aggregate (an empty queue: the empty back aggregate). */
  override def aggregate(parts: AggregateParts): Unit = {
    if (backStale) flip()
    if (front.isEmpty) parts.set(null, backTotal)
    else parts.set(front.top, if (backHasElements) backTotal else null)
  }

  def clear(): Unit = {
    front.clear()
    back.clear()
    resetBack()
  }

  /**
   * Continues a queue whose stacks were kept elsewhere (a stream's state): the aggregate of the
   * back's elements (a frozen partial) and the time of the oldest one, when the back has some.
   */
  def restoreBack(aggregate: InternalRow, oldest: Long): Unit = {
    require(!flipOnRead, "a queue kept elsewhere does not flip on read")
    if (balanced) backCounter.restart(aggregate) else buffers.assign(backAggregate, aggregate)
    backOldest = oldest
    backHasElements = true
  }

  /** The time of the back's oldest element, if the back has some. */
  def backOldestTime: Option[Long] = if (backHasElements) Some(backOldest) else None

  /**
   * The aggregate of the back's elements, of a queue kept elsewhere (one that flips on read may
   * not have it): valid until the queue changes.
   */
  def backAggregateBuffer: InternalRow = backTotal
}

object TwoStacks {
  /** A queue in memory (spilling to disk beyond the memory of `conf`). */
  def inMemory(buffers: AggregateBuffers, conf: WindowBufferConf, sharing: Int = 2): TwoStacks =
    new TwoStacks(buffers, conf.newStack(buffers.numBufferFields, sharing), conf.newStack(buffers.numBufferFields, sharing),
      buffers.balancedMerges, flipOnRead = true)
}
