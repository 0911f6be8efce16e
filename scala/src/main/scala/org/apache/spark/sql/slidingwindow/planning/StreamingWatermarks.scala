package org.apache.spark.sql.slidingwindow.planning

import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.EventTimeWatermark
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, SparkPlan}
import org.apache.spark.sql.slidingwindow.execution.{StreamingTrailingWindowExec, StreamingWindowedAggregateExec}
import org.apache.spark.sql.slidingwindow.idle.IdleClock
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
          val info = op.stateInfo.get
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
        }
      case op: StreamingTrailingWindowExec if needsWatermarks(op.stateInfo, op.eventTimeWatermarkForEviction, op.time) =>
        withPropagated(op, op.stateInfo.get) { (_, late, eviction) =>
          op.copy(eventTimeWatermarkForLateEvents = Some(late), eventTimeWatermarkForEviction = Some(eviction))
        }
    }
  }

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
