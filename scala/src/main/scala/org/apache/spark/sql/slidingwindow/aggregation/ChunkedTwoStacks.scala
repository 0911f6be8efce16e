package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.sql.catalyst.InternalRow

/**
 * The window queue of a sliding-window sweep: a FIFO of timestamped partials that answers "the
 * aggregate of everything inside" in O(1) amortized merges, with memory bounded whatever the
 * window holds.
 *
 * Small windows live in one [[TwoStacks]] (`tail`). When the tail's back reaches `chunkSize`
 * partials, they are sealed into a chunk: its aggregate goes to a Two-Stacks of chunk aggregates
 * (`middle`), its partials to [[PartialChunks]], compact and spilled to disk beyond a memory
 * budget. When eviction reaches a chunk, its partials are read back into the `head` Two-Stacks,
 * or skipped at once when they are all older than the new window. The aggregate is
 * head + middle + tail, oldest first, so the order of order-sensitive aggregates is kept.
 *
 * In memory at any time: at most `chunkSize` partials in the head and in the tail, one aggregate
 * per sealed chunk, and the chunk bytes within the budget.
 *
 * Invariant: the tail has a flipped front only when head and middle are empty (eviction reached
 * it); sealing then moves that front to the head.
 */
final class ChunkedTwoStacks(buffers: AggregateBuffers, chunkSize: Int, memoryBytes: Long)
  extends PartialQueue {

  private var head = new TwoStacks(buffers)
  private val middle = new TwoStacks(buffers)
  private var tail = new TwoStacks(buffers)
  private val chunks = new PartialChunks(buffers.bufferTypes.length, memoryBytes)
  private val answer: InternalRow = buffers.newBuffer()

  override def isEmpty: Boolean = head.isEmpty && chunks.isEmpty && tail.isEmpty

  /** Bytes of sealed chunks written to disk (0 unless a window outgrew the memory budget). */
  def spilledBytes: Long = chunks.spilledBytes

  /** Appends the frozen partial of the rows at `time`, newer than every element. */
  override def push(time: Long, partial: InternalRow): Unit = {
    tail.push(time, partial)
    if (tail.backCount >= chunkSize) seal()
  }

  /** Removes every element older than `time`. */
  override def evictBefore(time: Long): Unit = {
    var more = true
    while (more) {
      if (!head.isEmpty) {
        head.evictBefore(time)
        more = head.isEmpty
      } else if (chunks.nonEmpty) {
        if (chunks.oldestLastTime < time) {
          chunks.dropOldest()
        } else {
          chunks.removeOldest((t, p) => head.push(t, p))
        }
        middle.evictOldest()
      } else {
        tail.evictBefore(time)
        more = false
      }
    }
  }

  override def aggregate(): InternalRow = {
    if (head.isEmpty && chunks.isEmpty) {
      tail.aggregate()
    } else {
      buffers.initialize(answer)
      head.mergeInto(answer)
      middle.mergeInto(answer)
      tail.mergeInto(answer)
      answer
    }
  }

  override def clear(): Unit = {
    head.clear()
    middle.clear()
    tail.clear()
    chunks.clear()
  }

  /** Releases the spill file, if any. */
  def close(): Unit = chunks.close()

  private def seal(): Unit = {
    tail.takeBack { (times, partials, count, total) =>
      chunks.add(times, partials, count)
      middle.push(times(count - 1), total)
    }
    if (!tail.isEmpty) { // a flipped front: eviction had reached the tail, head was empty
      val front = tail
      tail = head
      head = front
    }
  }
}
