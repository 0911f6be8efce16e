package org.apache.spark.sql.slidingwindow.harness

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Alias, Ascending, BindReferences, CurrentRow, Literal, RangeFrame, SortOrder, SpecifiedWindowFrame, WindowExpression, WindowSpecDefinition}
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.execution.{StreamingTrailingWindowExec, TrailingDueSteps, TrailingFramesProcessor}
import org.apache.spark.sql.slidingwindow.state.StateArrangement
import org.apache.spark.sql.slidingwindow.state.trailing.{PendingLimits, TrailingState, TrailingStateLayout}
import org.apache.spark.sql.slidingwindow.stored.StoredFrames
import org.apache.spark.sql.types.DayTimeIntervalType

/**
 * Streaming trailing windows, partitioned by `k` and ordered by `t`, one frame per `(size, lag)`
 * of `frames` (`RANGE BETWEEN size PRECEDING AND CURRENT ROW`, or `AND lag PRECEDING`), each with
 * count(1), sum(v) and collect_list(id), as [[StreamingTrailingWindowExec]] runs one partition: its
 * [[TrailingState]] (verifying its row count at each commit), its [[TrailingFramesProcessor]], then
 * `finish` and the commit. Part, step and chunk sizes are read from the session's settings.
 */
final class TrailingOperator(val frames: Seq[(Long, Long)], val arrangement: StateArrangement)
  extends HarnessOperator[TrailingRow] {
  require(!arrangement.orderedRows, "trailing windows never order their rows")

  private val orderSpec = Seq(SortOrder(InputRow.t, Ascending))

  private def bound(micros: Long) = if (micros == 0) CurrentRow else Literal(-micros, DayTimeIntervalType())

  private val node = {
    val columns = frames.zipWithIndex.flatMap { case ((size, lag), i) =>
      val spec = WindowSpecDefinition(Seq(InputRow.k), orderSpec,
        SpecifiedWindowFrame(RangeFrame, bound(size), bound(lag)))
      Aggregated.expressions(withMax = false).zipWithIndex.map { case (aggregate, j) =>
        Alias(WindowExpression(aggregate, spec), s"frame${i}_$j")()
      }
    }
    TrailingNode(columns, Seq(InputRow.k), orderSpec, HarnessInput(InputRow.attributes))
  }
  private val windows = node.run()
  private val lags = node.lags
  private val largestSize = node.largestSize
  private val layout = new TrailingStateLayout(Seq(InputRow.k), InputRow.attributes)
  private val time = BindReferences.bindReference(orderSpec.head.child, InputRow.attributes)

  override def schema: TrailingStateLayout = layout
  override def inputOrdering: Seq[SortOrder] = Nil // the Pending parts keep rows in any order
  override def bookkeepingRows: Long = 0L // the Summary row is counted, and is gone with the last group

  override def start(store: StateStore, batchId: Long, batch: MicroBatch, conf: SQLConf, input: Iterator[InternalRow])
      : OperatorBatch[TrailingRow] = {
    val (late, eviction) = (batch.lateMicros, batch.evictionMicros)
    val state = TrailingState(TrailingStateLayout.current, store, layout, arrangement, late, eviction,
      PendingLimits(conf), verify = true)
    val processor = new TrailingFramesProcessor(state, time, batchId, late, eviction, largestSize, lags,
      StoredFrames.chunkElements(conf), TrailingDueSteps.stepBytes(conf), windows)
    val out = processor.process(input)
    new OperatorBatch[TrailingRow] {
      override val output: Iterator[TrailingRow] = out.map(decode)
      override def commit(): Unit = {
        processor.finish()
        state.commit()
      }
      override def rowCount: Option[Long] = state.metrics.rowCount
    }
  }

  private def decode(row: InternalRow): TrailingRow = {
    def opt(i: Int) = if (row.isNullAt(i)) None else Some(row.getLong(i))
    val input = InputRow(opt(0), opt(1), opt(2), row.getInt(3))
    TrailingRow(input, frames.indices.map(i => Aggregated.read(row, 4 + 3 * i, withMax = false)))
  }

  override def toString: String =
    s"trailing frames ${frames.map { case (s, l) => s"[t - $s, t - $l]" }.mkString(", ")}, $arrangement"
}
