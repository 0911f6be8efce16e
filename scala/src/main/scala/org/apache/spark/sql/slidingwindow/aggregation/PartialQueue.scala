package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.sql.catalyst.InternalRow

/**
 * A FIFO of timestamped frozen partials whose contents' aggregate is asked for as the window
 * slides: [[TwoStacks]] in memory, [[ChunkedTwoStacks]] with memory bounded.
 */
trait PartialQueue extends WindowContents {
  def isEmpty: Boolean
  /** Appends the frozen partial of the rows at `time`, newer than every element. */
  def push(time: Long, partial: InternalRow): Unit
  /** Removes every element older than `time`. */
  def evictBefore(time: Long): Unit
  def clear(): Unit
}
