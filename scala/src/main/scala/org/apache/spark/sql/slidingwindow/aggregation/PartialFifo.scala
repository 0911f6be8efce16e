package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.sql.catalyst.InternalRow

/**
 * A FIFO of timestamped frozen partials, oldest first, over two [[PartialStack]]s: new elements
 * go onto `in`; when `out` is empty, `in` is moved onto it, which puts the oldest on top. Each
 * element is moved once, so every operation is O(1) amortized, and the elements live wherever the
 * stacks keep them (compact memory that spills, or a stream's state store).
 *
 * The partials of a trailing frame `BETWEEN <size> PRECEDING AND <lag> PRECEDING` wait here for
 * the last `lag` of time before they enter its window ([[org.apache.spark.sql.slidingwindow.windows.TrailingWindows]]).
 */
final class PartialFifo(in: PartialStack, out: PartialStack) {
  def isEmpty: Boolean = out.isEmpty && in.isEmpty

  /** Appends a copy of `partial` with its time, newer than every element. */
  def add(time: Long, partial: InternalRow): Unit = in.push(time, partial)

  private def ready(): Unit = if (out.isEmpty) {
    while (!in.isEmpty) {
      out.push(in.topTime, in.top)
      in.pop()
    }
  }

  /** The time of the oldest element. */
  def firstTime: Long = { ready(); out.topTime }

  /** The oldest element: valid until the next change. */
  def first: InternalRow = { ready(); out.top }

  def removeFirst(): Unit = { ready(); out.pop() }

  def clear(): Unit = {
    in.clear()
    out.clear()
  }
}
