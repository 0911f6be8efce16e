package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, RowOrdering, SortOrder, UnsafeRow}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, WindowBufferConf, WindowContents}
import org.apache.spark.sql.slidingwindow.codegen.ProjectionPool
import org.apache.spark.sql.slidingwindow.expressions.WindowDefinition
import org.apache.spark.sql.slidingwindow.memory.SpillFile
import org.apache.spark.sql.slidingwindow.windows.{GroupWindows, WindowSink}

/**
 * Computes the windows of a partition whose rows are clustered by `keys` and sorted within each
 * group in the order the window kind applies them, as a batch query does: each group's rows feed
 * its [[GroupWindows]], and each window it closes becomes one row.
 *
 * Windows are pulled one at a time ([[WindowStepIterator]]): each step closes at most one window,
 * and the row returned is reused by the next one, as Spark operators do.
 */
final class WindowedAggregationIterator(
    definition: WindowDefinition,
    keys: Seq[Attribute],
    time: Attribute,
    inputAttributes: Seq[Attribute],
    buffers: AggregateBuffers,
    bufferConf: WindowBufferConf,
    writer: WindowRowWriter,
    input: Iterator[InternalRow],
    numInputRows: SQLMetric,
    numOutputRows: SQLMetric,
    numGroups: SQLMetric,
    spillSize: SQLMetric) extends WindowStepIterator with WindowSink {

  private val keyProjection = ProjectionPool.unsafe(keys, inputAttributes)
  // Whether a row is of the current group: its keys compared with those of the group's first
  // row, in place (no key row projected per input row).
  private val keyOrdering = RowOrdering.create(keys.map(SortOrder(_, Ascending)), inputAttributes)
  private val timeOrdinal = inputAttributes.indexWhere(_.exprId == time.exprId)
  private val windows = GroupWindows(definition, buffers, bufferConf)

  private var groupKey: UnsafeRow = _
  private var groupRow: InternalRow = _ // the group's first row
  private var nextGroupRow: InternalRow = _ // first row of the next group, once this one is done
  private var finished = false
  private var inputDone = false
  private val spilledBefore = SpillFile.bytesWritten

  /** One bounded piece of work that closes at most one window: close one, or take one row. */
  override protected def step(): Boolean = {
    if (windows.closeReady(this, 1) || emitted) return true
    if (nextGroupRow != null) {
      startGroup(nextGroupRow)
      nextGroupRow = null
    } else if (input.hasNext) {
      val row = input.next()
      numInputRows += 1
      if (!row.isNullAt(timeOrdinal)) {
        if (groupKey == null) {
          startGroup(row)
        } else if (keyOrdering.compare(row, groupRow) != 0) {
          windows.finish(this)
          nextGroupRow = row.copy()
        } else {
          windows.add(row.getLong(timeOrdinal), row, this)
        }
      }
    } else if (groupKey != null && !finished) {
      windows.finish(this)
      finished = true
    } else {
      inputDone = true
      spillSize += SpillFile.bytesWritten - spilledBefore
    }
    !inputDone
  }

  private def startGroup(row: InternalRow): Unit = {
    groupKey = keyProjection(row).copy()
    groupRow = row.copy()
    numGroups += 1
    windows.add(row.getLong(timeOrdinal), row, this)
  }

  override def window(start: Long, end: Long, contents: WindowContents): Unit = {
    emit(writer.write(groupKey, start, end, contents))
    numOutputRows += 1
  }
}
