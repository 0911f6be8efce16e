package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, TwoStacks}
import org.apache.spark.sql.slidingwindow.windows.{SlidingWindowSweep, WindowSink}

/**
 * Computes the windows of a partition whose rows are clustered by `keys` and sorted by
 * (keys, time), as a batch query does. Rows with the same key and time are pre-aggregated into one
 * partial, which feeds the group's [[SlidingWindowSweep]]; each closed window becomes one row.
 */
final class WindowedAggregationIterator(
    keys: Seq[Attribute],
    time: Attribute,
    inputAttributes: Seq[Attribute],
    buffers: AggregateBuffers,
    sizeMicros: Long,
    output: Seq[Attribute],
    input: Iterator[InternalRow],
    numInputRows: SQLMetric,
    numOutputRows: SQLMetric,
    numGroups: SQLMetric) extends Iterator[InternalRow] with WindowSink {

  private val keyProjection = UnsafeProjection.create(keys, inputAttributes)
  private val timeOrdinal = inputAttributes.indexWhere(_.exprId == time.exprId)
  private val writer = new WindowRowWriter(output)
  private val sweep = new SlidingWindowSweep(sizeMicros, buffers)
  private val ready = new java.util.ArrayDeque[InternalRow]()

  private var groupKey: UnsafeRow = _
  private val partial: InternalRow = buffers.newBuffer()
  private var partialTime = 0L
  private var partialHasRows = false
  private var inputDone = false

  override def hasNext: Boolean = {
    while (ready.isEmpty && !inputDone) step()
    !ready.isEmpty
  }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException
    ready.poll()
  }

  private def step(): Unit = {
    if (input.hasNext) {
      val row = input.next()
      numInputRows += 1
      if (!row.isNullAt(timeOrdinal)) {
        val key = keyProjection(row)
        val t = row.getLong(timeOrdinal)
        if (groupKey == null || key != groupKey) {
          endGroup()
          groupKey = key.copy()
          numGroups += 1
          startTime(t)
        } else if (t != partialTime) {
          sweep.add(partialTime, buffers.freeze(partial), this)
          startTime(t)
        }
        buffers.update(partial, row)
      }
    } else {
      endGroup()
      inputDone = true
    }
  }

  private def startTime(t: Long): Unit = {
    buffers.initialize(partial)
    partialTime = t
    partialHasRows = true
  }

  private def endGroup(): Unit = {
    if (partialHasRows) {
      sweep.add(partialTime, buffers.freeze(partial), this)
      sweep.finish(this)
      partialHasRows = false
    }
  }

  override def window(start: Long, end: Long, contents: TwoStacks): Unit = {
    ready.add(writer.write(groupKey, start, end, buffers.evaluate(contents.aggregate())))
    numOutputRows += 1
  }
}
