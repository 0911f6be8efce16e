package org.apache.spark.sql.slidingwindow.planning

import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, Complete}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Window}
import org.apache.spark.sql.catalyst.util.toPrettySQL
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.analysis.StreamingTrailingWindowChecks
import org.apache.spark.sql.slidingwindow.execution.{StreamingTrailingWindowExec, TrailingWindowExec}
import org.apache.spark.sql.slidingwindow.expressions.{AggregateIdentity, TrailingFrame, WindowSize}
import org.apache.spark.sql.slidingwindow.idle.IdleSettings
import org.apache.spark.sql.slidingwindow.late.LateRowsColumns
import org.apache.spark.sql.slidingwindow.logical.StreamingTrailingWindow
import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession
import org.apache.spark.sql.slidingwindow.state.trailing.{TrailingState, TrailingStateLayout}
import org.apache.spark.sql.slidingwindow.state.{StateArrangement, WindowOperatorRecord}
import org.apache.spark.sql.slidingwindow.state.WindowOperatorRecord.TrailingFrameRecord

/**
 * Plans trailing windows ([[TrailingFrame]]):
 *  - a batch query's Window operator whose every expression is one, as a [[TrailingWindowExec]]:
 *    the same rows, every frame in O(1) amortized merges. Any other Window is left to Spark, as
 *    is every Window when `spark.sql.slidingWindow.trailingWindows.batch` is false;
 *  - a stream's [[StreamingTrailingWindow]], as a [[StreamingTrailingWindowExec]] with its state
 *    info in a micro-batch (none when the stream is only explained, outside a running query), in
 *    the Append output mode, with a watermark on its time column.
 */
case class TrailingWindowStrategy(session: SparkSession) extends SparkStrategy {
  import TrailingWindowStrategy._

  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case w: Window if !w.isStreaming && enabled =>
      val frames = w.windowExpressions.map(TrailingFrame.of(_, w.orderSpec))
      if (frames.nonEmpty && frames.forall(_.isDefined)) {
        TrailingWindowExec(w.windowExpressions, w.partitionSpec, w.orderSpec, planLater(w.child)) :: Nil
      } else {
        Nil
      }
    case w: StreamingTrailingWindow => planStreaming(w) :: Nil
    case _ => Nil
  }

  private def planStreaming(w: StreamingTrailingWindow): SparkPlan = {
    val execution = StreamingQueryContext.currentExecution(session)
    val outputMode = execution.map(_.outputMode)
    outputMode.foreach(StreamingTrailingWindowChecks(w, _))
    val largestSize = w.windowExpressions.map(_.size).max
    val operatorId = execution.map(StreamingQueryContext.trailingOperatorId(_, w))
    val stateInfo = for (ie <- execution; id <- operatorId)
      yield StreamingQueryContext.stateInfo(ie, id, w.partitionSpec.nonEmpty)
    // A running query keeps the state format and arrangement its checkpoint records.
    val (version, arrangement) = (for (ie <- execution; id <- operatorId) yield {
      val frames = w.windowExpressions.map { c =>
        val aggregate = AggregateExpression(c.function, Complete, isDistinct = false)
        val frame = c.sql.substring(0, c.sql.lastIndexOf(" AS "))
        val identity = AggregateIdentity.of(aggregate)
        val over = frame.substring(frame.lastIndexOf(" OVER "))
        TrailingFrameRecord(frame, identity.computes + over,
          c.function.aggBufferAttributes.map(_.dataType.sql))
      }
      val record = WindowOperatorRecord.trailing(TrailingStateLayout.current,
        WindowSize.format(largestSize), w.timeName, w.partitionSpec.map(e => toPrettySQL(e)),
        outputMode.map(_.toString), frames, TrailingState.arrangementForNewQuery(session.sessionState.conf))
      // The rows waiting for the watermark are kept in the order of the query that started.
      OperatorRecordCheck.stateFormat(session, ie, id, record.copy(rows = Some(TrailingRowsPlan.Input(w).rows)),
        TrailingStateLayout.supported)
    }).getOrElse((TrailingStateLayout.current, StateArrangement(timeIndex = false, orderedRows = false)))
    val recordedRows = for (ie <- execution; id <- operatorId; rows <- OperatorRecordCheck.recordedRows(ie, id))
      yield rows
    val input = LateRowsPlan.input(session, execution, LateRowsColumns.trailing, stateInfo, w.child, planLater)
    TrailingRowsPlan(w, recordedRows, input.plan) { (columns, partitionSpec, orderSpec, time, child) =>
      StreamingTrailingWindowExec(columns.map(_.toAlias(partitionSpec, orderSpec)), partitionSpec, orderSpec, time,
        w.timeName, version, arrangement, stateInfo, outputMode, None, None,
        IdleSettings(session.sessionState.conf).copy(availableNow = MicroBatchInput.availableNow(session)), None,
        input.splitTarget.orElse(LateRowsPlan.target(session, execution, LateRowsColumns.trailing, operatorId,
          LateRowsColumns.written(child.output, Some(orderSpec.head.child -> w.timeName)))), child)
    }
  }
}

object TrailingWindowStrategy {
  val enabledKey = "spark.sql.slidingWindow.trailingWindows.batch"

  private def enabled: Boolean = SQLConf.get.getConfString(enabledKey, "true").trim.toBoolean
}
