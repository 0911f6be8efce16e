package org.apache.spark.sql.slidingwindow.windows

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, AggregateParts, PartialBuilder, TwoStacks, WindowBufferConf}

/**
 * The trailing windows of one group's rows, one per size: for the rows at a time `t`, the
 * aggregates over every row at a time in `[t - size, t]` (RANGE BETWEEN size PRECEDING AND
 * CURRENT ROW). Times come in ascending order, each time's rows one by one ([[begin]], [[add]]),
 * then [[results]]; each size keeps a Two-Stacks queue of per-time partials, so a time costs O(1)
 * amortized merges per size however many rows its windows hold.
 *
 * Rows with a null time are peers of each other only: their window is themselves.
 *
 * @param sizes   the sizes in microseconds
 * @param buffers the aggregates of each size, over the group's input rows
 */
final class TrailingWindows(sizes: Array[Long], buffers: Array[AggregateBuffers], conf: WindowBufferConf) {
  private val queues = buffers.map(TwoStacks.inMemory(_, conf))
  private val builders = buffers.map(new PartialBuilder(_))
  private val parts = new AggregateParts
  private val projections = buffers.map(b => UnsafeProjection.create(b.resultTypes.toArray))
  private val out = new Array[InternalRow](sizes.length)

  /** A new group: nothing before it is in its windows. */
  def reset(): Unit = queues.foreach(_.clear())

  /** The first row of a time. */
  def begin(row: InternalRow): Unit = builders.foreach(_.begin(row))

  /** Another row of the same time. */
  def add(row: InternalRow): Unit = builders.foreach(_.add(row))

  /**
   * The results of the windows of the time's rows (None: a null time), one row per size, valid
   * until the next [[begin]].
   */
  def results(time: Option[Long]): Array[InternalRow] = {
    var i = 0
    while (i < sizes.length) {
      time match {
        case Some(t) =>
          queues(i).push(t, builders(i).result)
          queues(i).evictBefore(SaturatingTime.sub(t, sizes(i)))
          queues(i).aggregate(parts)
        case None =>
          parts.set(builders(i).result, null)
      }
      out(i) = projections(i)(buffers(i).evaluate(parts))
      i += 1
    }
    out
  }
}
