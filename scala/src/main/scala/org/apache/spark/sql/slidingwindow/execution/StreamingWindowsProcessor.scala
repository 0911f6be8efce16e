package org.apache.spark.sql.slidingwindow.execution

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, UnsafeRow}
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, WindowBufferConf, WindowContents}
import org.apache.spark.sql.slidingwindow.expressions.{WindowDefinition, WindowKind}
import org.apache.spark.sql.slidingwindow.state.{WindowStateLayout, WindowStateStore}
import org.apache.spark.sql.slidingwindow.windows.WindowSink

/** What one micro-batch of one partition of a streaming windowed aggregation works with. */
final case class StreamingWindowsContext(
    state: WindowStateStore,
    buffers: AggregateBuffers,
    writer: WindowRowWriter,
    bufferConf: WindowBufferConf,
    sizeMicros: Long,
    time: Attribute,
    inputAttributes: Seq[Attribute],
    appendMode: Boolean,
    lateEventsWatermarkMicros: Option[Long],
    evictionWatermarkMicros: Option[Long]) {
  def layout: WindowStateLayout = state.layout
}

/**
 * One micro-batch of one partition of a streaming windowed aggregation: reads the partition's
 * input (clustered by group, sorted as [[org.apache.spark.sql.slidingwindow.logical.WindowedAggregate.inputOrdering]]),
 * updates the state and returns the window rows to emit. One subclass per window kind; both
 * enumerate windows with the same classes as batch queries.
 */
abstract class StreamingWindowsProcessor(context: StreamingWindowsContext) {
  import context._

  private val outputKeys = layout.outputKeysOfGroup()
  protected val groupOfInput = layout.groupOfInput(inputAttributes)
  protected val timeOrdinal: Int = inputAttributes.indexWhere(_.exprId == time.exprId)
  protected val codec = state.codec

  var droppedLateRows = 0L

  def process(input: Iterator[InternalRow]): Seq[InternalRow]

  /**
   * The input rows of a partition one group at a time, `f(group, its rows in input order)`:
   * rows with a null time are left out, and so are, with `dropLate`, rows at or below the
   * late-events watermark (counted).
   */
  protected def forEachGroup(input: Iterator[InternalRow], dropLate: Boolean = true)(
      f: (UnsafeRow, Iterator[InternalRow]) => Unit): Unit = {
    val late = if (dropLate) lateEventsWatermarkMicros.getOrElse(Long.MinValue) else Long.MinValue
    val kept = input.filter { row =>
      if (row.isNullAt(timeOrdinal)) false
      else if (row.getLong(timeOrdinal) <= late) { droppedLateRows += 1; false }
      else true
    }.buffered
    while (kept.hasNext) {
      val group = groupOfInput(kept.head).copy()
      val rows = new Iterator[InternalRow] {
        override def hasNext: Boolean = kept.hasNext && groupOfInput(kept.head) == group
        override def next(): InternalRow = kept.next()
      }
      f(group, rows)
      rows.foreach(_ => ()) // whatever f left of the group
    }
  }

  /** Collects the windows of one group that `wanted(start, end)` accepts as output rows. */
  protected final class Sink(
      group: UnsafeRow,
      out: mutable.ArrayBuffer[InternalRow],
      wanted: (Long, Long) => Boolean) extends WindowSink {
    private val keys = outputKeys(group).copy()
    override def window(start: Long, end: Long, contents: WindowContents): Unit = {
      if (wanted(start, end)) out += writer.write(keys, start, end, contents).copy()
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
