package org.apache.spark.sql.slidingwindow.planning

import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.EventTimeWatermark
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, SparkPlan}
import org.apache.spark.sql.slidingwindow.execution.{StreamingTrailingWindowExec, StreamingWindowedAggregateExec}
import org.apache.spark.sql.slidingwindow.idle.IdleClock

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
      case op: StreamingWindowedAggregateExec if op.stateInfo.isDefined &&
          op.eventTimeWatermarkForEviction.isEmpty &&
          op.time.metadata.contains(EventTimeWatermark.delayKey) =>
        StreamingQueryContext.currentExecution(session).map { execution =>
          val info = op.stateInfo.get
          val propagator = execution.watermarkPropagator
          val late = propagator.getInputWatermarkForLateEvents(info.storeVersion, info.operatorId)
          val eviction = propagator.getInputWatermarkForEviction(info.storeVersion, info.operatorId)
          val clock = IdleClockLog.clock(session, execution, info.operatorId, op.idle) { previous =>
            val hadInput = MicroBatchInput.hasRows(execution.logical)
            val delayMs = op.time.metadata.getLong(EventTimeWatermark.delayKey)
            IdleClock.next(previous, op.idle, execution.offsetSeqMetadata.batchTimestampMs, hadInput,
              late, eviction, endOfInput = !hadInput && op.idle.availableNow,
              closeAllMs = eviction + delayMs + (op.definition.sizeMicros + 999) / 1000 + 1)
          }
          op.copy(
            eventTimeWatermarkForLateEvents = Some(clock.map(_.lateMs).getOrElse(late)),
            eventTimeWatermarkForEviction = Some(clock.map(_.evictionMs).getOrElse(eviction)),
            idleClock = clock)
        }.getOrElse(op)
      case op: StreamingTrailingWindowExec if op.stateInfo.isDefined &&
          op.eventTimeWatermarkForEviction.isEmpty &&
          op.time.metadata.contains(EventTimeWatermark.delayKey) =>
        StreamingQueryContext.currentExecution(session).map { execution =>
          val info = op.stateInfo.get
          val propagator = execution.watermarkPropagator
          op.copy(
            eventTimeWatermarkForLateEvents =
              Some(propagator.getInputWatermarkForLateEvents(info.storeVersion, info.operatorId)),
            eventTimeWatermarkForEviction =
              Some(propagator.getInputWatermarkForEviction(info.storeVersion, info.operatorId)))
        }.getOrElse(op)
    }
  }
}
