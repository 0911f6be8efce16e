package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, UnsafeRow}
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, WindowBufferConf, WindowContents}
import org.apache.spark.sql.slidingwindow.expressions.{WindowDefinition, WindowKind}
import org.apache.spark.sql.slidingwindow.late.LateRows
import org.apache.spark.sql.slidingwindow.state.sliding.{WindowState, WindowStateLayout}
import org.apache.spark.sql.slidingwindow.windows.WindowSink

/** What one micro-batch of one partition of a streaming windowed aggregation works with. */
final case class StreamingWindowsContext(
    state: WindowState,
    buffers: AggregateBuffers,
    writer: WindowRowWriter,
    bufferConf: WindowBufferConf,
    sizeMicros: Long,
    time: Attribute,
    inputAttributes: Seq[Attribute],
    appendMode: Boolean,
    lateEventsWatermarkMicros: Option[Long],
    evictionWatermarkMicros: Option[Long],
    sparkEvictionWatermarkMicros: Option[Long] = None,
    lateRows: LateRows = LateRows.counted()) {
  def layout: WindowStateLayout = state.layout
}

/**
 * One micro-batch of one partition of a streaming windowed aggregation: reads the partition's
 * input (clustered by group, sorted as [[org.apache.spark.sql.slidingwindow.logical.WindowedAggregate.inputOrdering]]),
 * updates the state and hands on the window rows to emit. One subclass per window kind; both
 * enumerate windows with the same classes as batch queries.
 *
 * The processor is the iterator of its output rows ([[WindowStepIterator]]): the work is done as
 * the rows are pulled, in steps that close at most one window, so a watermark that closes
 * millions of windows hands them on one at a time, as the batch operator does. The state store
 * is committed by the operator once the last row is pulled, as Spark's StateStoreSaveExec does.
 */
abstract class StreamingWindowsProcessor(context: StreamingWindowsContext) extends WindowStepIterator {
  import context._

  private val outputKeys = layout.outputKeysOfGroup()
  protected val groupOfInput = layout.groupOfInput(inputAttributes)
  protected val timeOrdinal: Int = inputAttributes.indexWhere(_.exprId == time.exprId)
  protected val codec = state.codec

  /**
   * Windows emitted in append mode that Spark's own eviction watermark left open, closed by the
   * operator's idle clock (`sparkEvictionWatermarkMicros`, where the operator keeps one).
   */
  var windowsClosedWhileIdle = 0L
  private val closedWhileIdleAfter = if (appendMode) sparkEvictionWatermarkMicros else None

  /** The output rows of this micro-batch, computed as they are pulled. Call once. */
  final def process(input: Iterator[InternalRow]): Iterator[InternalRow] = {
    begin(input)
    this
  }

  /** Takes the partition's input; no work is done before the first row is pulled. */
  protected def begin(input: Iterator[InternalRow]): Unit

  /**
   * The input rows of a partition one group at a time: (group, its rows in input order), each
   * group's rows read as they are pulled (whatever is left of a group is skipped when the next
   * one is pulled). Rows with a null time are left out, and so are, with `dropLate`, rows at or
   * below the late-events watermark (handed to [[LateRows]]: counted, and written where the
   * query has a late-rows table).
   */
  protected def groups(input: Iterator[InternalRow], dropLate: Boolean = true)
      : Iterator[(UnsafeRow, Iterator[InternalRow])] = {
    val late = if (dropLate) lateEventsWatermarkMicros.getOrElse(Long.MinValue) else Long.MinValue
    val kept = input.filter { row =>
      if (row.isNullAt(timeOrdinal)) false
      else if (row.getLong(timeOrdinal) <= late) { lateRows.add(row, row.getLong(timeOrdinal)); false }
      else true
    }.buffered
    new Iterator[(UnsafeRow, Iterator[InternalRow])] {
      private var current: Iterator[InternalRow] = Iterator.empty

      override def hasNext: Boolean = {
        current.foreach(_ => ()) // whatever is left of the previous group
        kept.hasNext
      }

      override def next(): (UnsafeRow, Iterator[InternalRow]) = {
        if (!hasNext) throw new NoSuchElementException
        val group = groupOfInput(kept.head).copy()
        current = new Iterator[InternalRow] {
          override def hasNext: Boolean = kept.hasNext && groupOfInput(kept.head) == group
          override def next(): InternalRow = kept.next()
        }
        (group, current)
      }
    }
  }

  /**
   * Emits the windows of one group that `wanted(start, end)` accepts, as output rows; those that
   * the watermark closes (`byWatermark`: not a batch window that its group's stream time left)
   * past Spark's own are counted in [[windowsClosedWhileIdle]].
   */
  protected final class Sink(group: UnsafeRow, wanted: (Long, Long) => Boolean) extends WindowSink {
    private val keys = outputKeys(group).copy()
    var byWatermark = true
    override def window(start: Long, end: Long, contents: WindowContents): Unit = {
      if (wanted(start, end)) {
        if (byWatermark && closedWhileIdleAfter.exists(end > _)) windowsClosedWhileIdle += 1
        emit(writer.write(keys, start, end, contents))
      }
    }
  }
}

/**
 * A piece of a micro-batch's work that takes several steps, such as visiting one group: each
 * [[step]] does a bounded amount of it and emits at most one row.
 */
private[execution] trait StepWork {
  /** One bounded step; returns whether work is left. */
  def step(): Boolean
}

object StreamingWindowsProcessor {
  def apply(definition: WindowDefinition, context: StreamingWindowsContext): StreamingWindowsProcessor =
    definition.kind match {
      case WindowKind.Sliding => new SlidingWindowsProcessor(context)
      case WindowKind.Batch => new BatchWindowsProcessor(context)
    }
}
