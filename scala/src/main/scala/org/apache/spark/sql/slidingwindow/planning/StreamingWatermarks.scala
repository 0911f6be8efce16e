package org.apache.spark.sql.slidingwindow.planning

import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.EventTimeWatermark
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, SparkPlan}
import org.apache.spark.sql.slidingwindow.execution.{LateRowsSplitExec, StreamingTrailingWindowExec, StreamingWindowedAggregateExec}
import org.apache.spark.sql.slidingwindow.idle.{IdleClock, IdleSettings}
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.{IncrementalExecution, StatefulOperatorStateInfo}

/**
 * Gives our streaming operator its watermarks, as Spark's WatermarkPropagationRule does for its
 * own operators (a closed list). Injected as a pre-columnar-transition rule, which
 * IncrementalExecution runs after its `state` rule, when the watermark propagator knows the
 * batch's watermarks. Where the operator closes windows when its input goes quiet
 * ([[org.apache.spark.sql.slidingwindow.idle.IdleSettings]]), its watermarks are those of its [[IdleClock]], from Spark's.
 */
case class StreamingWatermarks(session: SparkSession) extends ColumnarRule {
  override def preColumnarTransitions: Rule[SparkPlan] = new Rule[SparkPlan] {
    override def apply(plan: SparkPlan): SparkPlan = plan.transformUp {
      // Only a time column with a watermark has one (update mode runs without), as for
      // Spark's own operators.
      case op: StreamingWindowedAggregateExec if needsWatermarks(op.stateInfo, op.eventTimeWatermarkForEviction, op.time) =>
        withPropagated(op, op.stateInfo.get) { (execution, late, eviction) =>
          // A window closes at its end: past every window, the latest row's time plus the size.
          val clock = idleClock(execution, op.stateInfo.get, op.idle, op.time, late, eviction,
            (op.definition.sizeMicros + 999) / 1000)
          val lateMs = clock.map(_.lateMs).getOrElse(late)
          op.copy(
            eventTimeWatermarkForLateEvents = Some(lateMs),
            eventTimeWatermarkForEviction = Some(clock.map(_.evictionMs).getOrElse(eviction)),
            idleClock = clock,
            child = withLateRows(op.child, op.stateInfo.get, lateMs, clock))
        }
      case op: StreamingTrailingWindowExec if needsWatermarks(op.stateInfo, op.eventTimeWatermarkForEviction, op.time) =>
        withPropagated(op, op.stateInfo.get) { (execution, late, eviction) =>
          // A row is due once the eviction watermark is at its time: past every row, its time.
          val clock = idleClock(execution, op.stateInfo.get, op.idle, op.time, late, eviction, 0L)
          val lateMs = clock.map(_.lateMs).getOrElse(late)
          op.copy(
            eventTimeWatermarkForLateEvents = Some(lateMs),
            eventTimeWatermarkForEviction = Some(clock.map(_.evictionMs).getOrElse(eviction)),
            idleClock = clock,
            child = withLateRows(op.child, op.stateInfo.get, lateMs, clock))
        }
    }
  }

  /**
   * The operator's [[IdleClock]] for the micro-batch `execution` plans, from Spark's watermarks
   * (None where it keeps none). At the end of an AvailableNow run's input, the watermark passes
   * every row seen and `pastLatestMs` more: Spark's watermark is the latest event time, in whole
   * milliseconds (truncated), less the delay, so Spark's + the delay + 1 ms is past the latest
   * row's time, microseconds and all.
   */
  private def idleClock(execution: IncrementalExecution, info: StatefulOperatorStateInfo, idle: IdleSettings,
      time: Attribute, late: Long, eviction: Long, pastLatestMs: Long): Option[IdleClock] =
    IdleClockLog.clock(session, execution, info.operatorId, idle) { previous =>
      val hadInput = MicroBatchInput.hasRows(execution.logical)
      val delayMs = time.metadata.getLong(EventTimeWatermark.delayKey)
      IdleClock.next(previous, idle, execution.offsetSeqMetadata.batchTimestampMs, hadInput,
        late, eviction, endOfInput = !hadInput && idle.availableNow,
        closeAllMs = eviction + delayMs + pastLatestMs + 1)
    }

  /**
   * `child` with the split that takes operator `info`'s late rows out before its shuffle, if it
   * has one, given the operator's watermark for late rows (`lateMs`) and Spark's (its clock's).
   */
  private def withLateRows(child: SparkPlan, info: StatefulOperatorStateInfo, lateMs: Long,
      clock: Option[IdleClock]): SparkPlan =
    LateRowsSplitExec.withWatermarks(child, info.operatorId,
      LateRowsSplitExec.Watermarks(lateMs * 1000, clock.map(_.sparkLateMs).getOrElse(lateMs) * 1000))

  private def needsWatermarks(stateInfo: Option[_], eviction: Option[Long], time: Attribute): Boolean =
    stateInfo.isDefined && eviction.isEmpty && time.metadata.contains(EventTimeWatermark.delayKey)

  /** `op` given the micro-batch's watermarks for late rows and for eviction, in a running query. */
  private def withPropagated(op: SparkPlan, info: StatefulOperatorStateInfo)(
      give: (IncrementalExecution, Long, Long) => SparkPlan): SparkPlan =
    StreamingQueryContext.currentExecution(session).map { execution =>
      val propagator = execution.watermarkPropagator
      give(execution, propagator.getInputWatermarkForLateEvents(info.storeVersion, info.operatorId),
        propagator.getInputWatermarkForEviction(info.storeVersion, info.operatorId))
    }.getOrElse(op)
}
