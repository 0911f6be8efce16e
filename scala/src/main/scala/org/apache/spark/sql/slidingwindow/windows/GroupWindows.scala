package org.apache.spark.sql.slidingwindow.windows

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, WindowBufferConf}
import org.apache.spark.sql.slidingwindow.expressions.{WindowDefinition, WindowKind}

/**
 * The windows of one group, computed from its rows in one pass. A batch query feeds each group's
 * rows in the order the window kind needs (by time for sliding windows; by time, or by the
 * `order` column, for batch windows), then finishes the group.
 *
 * Windows go to the sink as they close, either at once or, where one row can close any number
 * of windows, a bounded number at a time: the caller calls [[closeReady]] until it returns
 * false before each [[add]] and after [[finish]], handing the rows on in between.
 */
trait GroupWindows {
  /** Adds one row, whose time is `time`. */
  def add(time: Long, row: InternalRow, sink: WindowSink): Unit

  /** The group has no more rows: its remaining windows become ready to close. */
  def finish(sink: WindowSink): Unit

  /** Closes at most about `budget` ready windows; returns whether some are still ready. */
  def closeReady(sink: WindowSink, budget: Int): Boolean
}

object GroupWindows {
  def apply(definition: WindowDefinition, buffers: AggregateBuffers, bufferConf: WindowBufferConf): GroupWindows =
    definition.kind match {
      case WindowKind.Sliding => new SlidingGroupWindows(definition.sizeMicros, buffers, bufferConf)
      case WindowKind.Batch => new StreamTimeWindows(definition.sizeMicros, buffers)
    }
}
