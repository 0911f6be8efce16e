package org.apache.spark.sql.slidingwindow.windows

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, AggregateParts, PartialBuilder, TwoStacks, WindowBufferConf}

/**
 * The trailing windows of one group's rows, one per size: for the rows at a time `t`, the
 * aggregates over every row at a time in `[t - size, t]` (RANGE BETWEEN size PRECEDING AND
 * CURRENT ROW). The rows of each time come in one call, in time order; each size keeps a
 * Two-Stacks queue of per-time partials, so a time costs O(1) amortized merges per size however
 * many rows its windows hold.
 *
 * Rows with a null time are peers of each other only: their window is themselves.
 *
 * @param sizes   the sizes in microseconds, one per aggregate group
 * @param buffers the aggregates of each size, over the group's input rows
 * @param results a projection per size from its buffers' results to a row of its own
 */
final class TrailingWindows(sizes: Array[Long], buffers: Array[AggregateBuffers], conf: WindowBufferConf) {
  private val queues = buffers.map(TwoStacks.inMemory(_, conf))
  private val builders = buffers.map(new PartialBuilder(_))
  private val parts = new AggregateParts
  private val results = buffers.map(b => UnsafeProjection.create(b.resultTypes.toArray))

  /** A new group: nothing before it is in its windows. */
  def reset(): Unit = queues.foreach(_.clear())

  /**
   * The results of the windows of the rows at `time` (None: a null time), one row per size, valid
   * until the next call. `rows` are every row at that time, given once.
   */
  def at(time: Option[Long], rows: scala.collection.IndexedSeq[InternalRow]): Array[InternalRow] = {
    val out = new Array[InternalRow](sizes.length)
    var i = 0
    while (i < sizes.length) {
      val builder = builders(i)
      builder.begin(rows(0))
      var r = 1
      while (r < rows.length) {
        builder.add(rows(r))
        r += 1
      }
      time match {
        case Some(t) =>
          queues(i).push(t, builder.result)
          queues(i).evictBefore(SaturatingTime.sub(t, sizes(i)))
          queues(i).aggregate(parts)
        case None =>
          parts.set(builder.result, null)
      }
      out(i) = results(i)(buffers(i).evaluate(parts))
      i += 1
    }
    out
  }
}
