package org.apache.spark.sql.slidingwindow.execution

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, WindowBufferConf, WindowContents}
import org.apache.spark.sql.slidingwindow.expressions.{WindowDefinition, WindowKind}
import org.apache.spark.sql.slidingwindow.state.{WindowStateLayout, WindowTimeIndex}
import org.apache.spark.sql.slidingwindow.windows.WindowSink

/** What one micro-batch of one partition of a streaming windowed aggregation works with. */
final case class StreamingWindowsContext(
    store: StateStore,
    layout: WindowStateLayout,
    index: WindowTimeIndex,
    buffers: AggregateBuffers,
    writer: WindowRowWriter,
    bufferConf: WindowBufferConf,
    sizeMicros: Long,
    time: Attribute,
    inputAttributes: Seq[Attribute],
    appendMode: Boolean,
    lateEventsWatermarkMicros: Option[Long],
    evictionWatermarkMicros: Option[Long])

/**
 * One micro-batch of one partition of a streaming windowed aggregation: reads the partition's
 * input (clustered by group, sorted as [[org.apache.spark.sql.slidingwindow.logical.WindowedAggregate.inputOrdering]]),
 * updates the state and returns the window rows to emit. One subclass per window kind; both
 * enumerate windows with the same classes as batch queries.
 */
abstract class StreamingWindowsProcessor(context: StreamingWindowsContext) {
  import context._

  protected val groupOfData = layout.groupOfData()
  private val outputKeys = layout.outputKeysOfGroup()
  protected val timeOrdinal: Int = inputAttributes.indexWhere(_.exprId == time.exprId)

  var droppedLateRows = 0L
  var updatedStateRows = 0L
  var removedStateRows = 0L

  def process(input: Iterator[InternalRow]): Seq[InternalRow]

  /** The stored (time, value) entries of a group within [from, to], ascending by time. */
  protected def loadGroup(
      group: UnsafeRow,
      from: Long = Long.MinValue,
      to: Long = Long.MaxValue): Array[(Long, UnsafeRow)] =
    index.groupEntries(group, from, to).toArray.sortBy(_._1)

  /** Collects the windows of one group that `wanted(start, end)` accepts as output rows. */
  protected final class Sink(
      group: UnsafeRow,
      out: mutable.ArrayBuffer[InternalRow],
      wanted: (Long, Long) => Boolean) extends WindowSink {
    private val keys = outputKeys(group).copy()
    override def window(start: Long, end: Long, contents: WindowContents): Unit = {
      if (wanted(start, end)) {
        out += writer.write(keys, start, end, contents).copy()
      }
    }
  }
}

object StreamingWindowsProcessor {
  def apply(definition: WindowDefinition, context: StreamingWindowsContext): StreamingWindowsProcessor =
    definition.kind match {
      case WindowKind.Sliding => new SlidingWindowsProcessor(context)
      case WindowKind.Batch => new BatchWindowsProcessor(context)
    }
}
