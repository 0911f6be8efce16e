package org.apache.spark.sql.slidingwindow.windows

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, WindowBufferConf}
import org.apache.spark.sql.slidingwindow.expressions.{WindowDefinition, WindowKind}

/**
 * The windows of one group, computed from its rows in one pass. A batch query feeds each group's
 * rows in the order the window kind needs (by time for sliding windows; by time, or by the
 * `order` column, for batch windows), then finishes the group.
 */
trait GroupWindows {
  /** Adds one row, whose time is `time`. */
  def add(time: Long, row: InternalRow, sink: WindowSink): Unit

  /** The group has no more rows: closes its remaining windows and gets ready for the next group. */
  def finish(sink: WindowSink): Unit
}

object GroupWindows {
  def apply(definition: WindowDefinition, buffers: AggregateBuffers, bufferConf: WindowBufferConf): GroupWindows =
    definition.kind match {
      case WindowKind.Sliding => new SlidingGroupWindows(definition.sizeMicros, buffers, bufferConf)
      case WindowKind.Batch => new StreamTimeWindows(definition.sizeMicros, buffers)
    }
}
