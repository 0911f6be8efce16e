package org.apache.spark.sql.slidingwindow.harness

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, SortOrder}
import org.apache.spark.sql.catalyst.streaming.InternalOutputModes
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, WindowBufferConf}
import org.apache.spark.sql.slidingwindow.execution.{StreamingWindowedAggregateExec, StreamingWindowsContext, StreamingWindowsProcessor, WindowRowWriter}
import org.apache.spark.sql.slidingwindow.expressions.{WindowDefinition, WindowFunction, WindowKind}
import org.apache.spark.sql.slidingwindow.idle.IdleSettings
import org.apache.spark.sql.slidingwindow.state.StateArrangement
import org.apache.spark.sql.slidingwindow.state.sliding.{RecordCache, RecordLimits, WindowState, WindowStateLayout}
import org.apache.spark.sql.types.TimestampType

/**
 * The streaming windowed aggregation (`sliding_window` or `batch_window` of size `sizeMicros`,
 * grouped by `k`) as [[StreamingWindowedAggregateExec]] runs one partition: its [[WindowState]]
 * in state format `stateFormatVersion` (verifying its row counts at each commit, as under
 * `verifyRowCount`), its [[StreamingWindowsProcessor]] over the input, then the state's commit.
 * The record limits and cache are read from the session's settings, as the exec reads them.
 */
final class WindowedAggregateOperator(
    kind: WindowKind,
    val sizeMicros: Long,
    val append: Boolean,
    stateFormatVersion: Int,
    val arrangement: StateArrangement) extends HarnessOperator[WindowRow] {

  private val keys = Seq(InputRow.k)
  private val aggregates = Aggregated.expressions(withMax = true)
  private val window = AttributeReference("window", WindowFunction.windowType(TimestampType), nullable = false)()
  private val results = aggregates.map(_.resultAttribute)
  private val definition = WindowDefinition(kind, sizeMicros)
  private val layout = WindowStateLayout(stateFormatVersion, keys,
    DataTypeUtils.fromAttributes(aggregates.flatMap(_.aggregateFunction.aggBufferAttributes)))

  /** The exec itself, for what it requires of its input (made in a session, as stateful execs are). */
  private val exec = {
    HarnessSpark.start()
    StreamingWindowedAggregateExec(definition, keys, InputRow.t, None, window, aggregates,
      keys ++ (window +: results), stateFormatVersion, arrangement, None,
      Some(if (append) InternalOutputModes.Append else InternalOutputModes.Update), None, None,
      IdleSettings.off, None, None, HarnessInput(InputRow.attributes))
  }

  override def schema: WindowStateLayout = layout
  override def inputOrdering: Seq[SortOrder] = exec.requiredChildOrdering.head
  // State format 2 with a time index keeps a commit row, which its count leaves out.
  override def bookkeepingRows: Long = if (layout.hasGroupRecords && arrangement.timeIndex) 1L else 0L

  override def start(store: StateStore, batchId: Long, batch: MicroBatch, conf: SQLConf, input: Iterator[InternalRow])
      : OperatorBatch[WindowRow] = {
    val eviction = Some(batch.evictionMicros)
    val state = WindowState(store, layout, arrangement, eviction, RecordLimits(conf, append),
      RecordCache.maxBytes(conf), verify = true)
    val buffers = new AggregateBuffers(aggregates, InputRow.attributes)
    val writer = new WindowRowWriter(keys, window, results, keys ++ (window +: results), buffers)
    val processor = StreamingWindowsProcessor(definition, StreamingWindowsContext(state, buffers, writer,
      WindowBufferConf(conf), sizeMicros, InputRow.t, InputRow.attributes, append, Some(batch.lateMicros), eviction))
    val out = processor.process(input)
    new OperatorBatch[WindowRow] {
      override val output: Iterator[WindowRow] = out.map(decode)
      override def commit(): Unit = state.commit()
      override def rowCount: Option[Long] = state.metrics.rowCount
    }
  }

  private def decode(row: InternalRow): WindowRow = {
    val bounds = row.getStruct(1, 2)
    WindowRow(if (row.isNullAt(0)) None else Some(row.getLong(0)), bounds.getLong(0), bounds.getLong(1),
      Aggregated.read(row, 2, withMax = true))
  }

  override def toString: String =
    s"$definition, ${if (append) "append" else "update"} mode, state format $stateFormatVersion, $arrangement"
}
