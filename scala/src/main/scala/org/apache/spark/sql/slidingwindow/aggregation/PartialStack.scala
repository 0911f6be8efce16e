package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.sql.catalyst.InternalRow

/**
 * A stack of timestamped frozen partials: the storage of one side of a [[TwoStacks]] queue. Only
 * the top is ever read, so the elements below it can live anywhere: compact in-memory chunks
 * that spill to disk ([[RowStack]]), or a streaming operator's state store.
 */
trait PartialStack {
  def isEmpty: Boolean
  /** Pushes a copy of `partial` (an UnsafeRow) with its time. */
  def push(time: Long, partial: InternalRow): Unit
  /** Time of the top element. */
  def topTime: Long
  /** The top element: valid until the next push or pop. */
  def top: InternalRow
  def pop(): Unit
  def clear(): Unit
}
