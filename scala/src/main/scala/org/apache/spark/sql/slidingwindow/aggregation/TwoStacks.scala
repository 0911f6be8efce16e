package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

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
 * The back's aggregate is brought up to date only when it is read, and with `flipOnRead` (a queue
 * in memory) reading the aggregate of a queue whose front is empty flips the back first: then
 * elements pushed while the front is empty are merged once, into their suffixes, and never into
 * the back's aggregate. A sweep that pushes many times before it reads, as a stream's update mode
 * does to emit the windows that a new row changed, merges each once instead of twice. Until they
 * are merged, the back's newest elements are rows over the back stack's own bytes (at most
 * [[TwoStacks.MaxUnmerged]]). A queue kept in a state store does not flip on read: a flip writes
 * the front's suffixes to the store.
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
  // The back's newest elements, not merged into `backAggregate` yet (oldest first): rows over the
  // back stack's bytes, which stay in place until a flip pops them.
  private var unmerged = new Array[UnsafeRow](0)
  private var numUnmerged = 0

  def isEmpty: Boolean = front.isEmpty && !backHasElements

  /** Appends the frozen partial of the rows at `time`, newer than every element. */
  def push(time: Long, partial: InternalRow): Unit = {
    if (!backHasElements) {
      backOldest = time
      backHasElements = true
    }
    back.push(time, partial)
    if (balanced) backCounter.add(partial) else deferMerge(back.top.asInstanceOf[UnsafeRow])
  }

  private def deferMerge(element: UnsafeRow): Unit = {
    if (numUnmerged == unmerged.length) {
      if (numUnmerged == TwoStacks.MaxUnmerged) mergeUnmerged()
      else unmerged = java.util.Arrays.copyOf(unmerged, math.max(8, 2 * numUnmerged))
    }
    if (unmerged(numUnmerged) == null) unmerged(numUnmerged) = new UnsafeRow(buffers.numBufferFields)
    unmerged(numUnmerged).pointTo(element.getBaseObject, element.getBaseOffset, element.getSizeInBytes)
    numUnmerged += 1
  }

  private def mergeUnmerged(): Unit = {
    var i = 0
    while (i < numUnmerged) {
      buffers.merge(backAggregate, unmerged(i))
      unmerged(i).pointTo(null, 0L, 0) // let go of the stack's bytes
      i += 1
    }
    numUnmerged = 0
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
    numUnmerged = 0
    backHasElements = false
  }

  /** The aggregate of the back's elements (the empty aggregate when there are none). */
  private def backTotal: InternalRow =
    if (balanced) { if (backHasElements) backCounter.total else backAggregate }
    else { if (numUnmerged > 0) mergeUnmerged(); backAggregate }

  /** The front's top and the back's aggregate (an empty queue: the empty back aggregate). */
  override def aggregate(parts: AggregateParts): Unit = {
    if (flipOnRead && backHasElements && front.isEmpty) flip()
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
    numUnmerged = 0
    if (balanced) backCounter.restart(aggregate) else buffers.assign(backAggregate, aggregate)
    backOldest = oldest
    backHasElements = true
  }

  /** The time of the back's oldest element, if the back has some. */
  def backOldestTime: Option[Long] = if (backHasElements) Some(backOldest) else None

  /** The aggregate of the back's elements: valid until the queue changes. */
  def backAggregateBuffer: InternalRow = backTotal
}

object TwoStacks {
  /** The most elements the back holds that are not merged into its aggregate. */
  private val MaxUnmerged = 1024

  /** A queue in memory (spilling to disk beyond the memory of `conf`). */
  def inMemory(buffers: AggregateBuffers, conf: WindowBufferConf): TwoStacks =
    new TwoStacks(buffers, conf.newStack(buffers.numBufferFields), conf.newStack(buffers.numBufferFields),
      buffers.balancedMerges, flipOnRead = true)
}
