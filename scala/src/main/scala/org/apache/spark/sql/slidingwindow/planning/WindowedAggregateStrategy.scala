package org.apache.spark.sql.slidingwindow.planning

import org.apache.spark.sql.catalyst.expressions.{ExprId, Expression, NamedExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.catalyst.streaming.InternalOutputModes
import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.execution.{StreamingWindowedAggregateExec, WindowedAggregateExec}
import org.apache.spark.sql.slidingwindow.idle.IdleSettings
import org.apache.spark.sql.slidingwindow.late.LateRowsColumns
import org.apache.spark.sql.slidingwindow.logical.{AggregateColumn, WindowedAggregate}
import org.apache.spark.sql.slidingwindow.state.{StateArrangement, WindowOperatorRecord}
import org.apache.spark.sql.slidingwindow.state.sliding.StateFormatVersion
import org.apache.spark.sql.slidingwindow.analysis.TimeColumnWatermark

/**
 * Plans a [[WindowedAggregate]]: a [[WindowedAggregateExec]] in a batch query, a
 * [[StreamingWindowedAggregateExec]] with its state info in a micro-batch (none when the stream
 * is only explained, outside a running query).
 *
 * A deterministic Project right above the aggregation (its SELECT list) is computed by the
 * operator itself, as Spark's aggregation operators compute their result expressions: each
 * window's output row is then written once.
 */
case class WindowedAggregateStrategy(session: SparkSession) extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case Project(projectList, a: WindowedAggregate) if projectList.forall(_.deterministic) =>
      planAggregate(a, projectList) :: Nil
    case a: WindowedAggregate => planAggregate(a, a.output) :: Nil
    case _ => Nil
  }

  private def planAggregate(a: WindowedAggregate, resultExpressions: Seq[NamedExpression]): SparkPlan = {
    val (aggregates, results) = aggregatesAndResults(a, resultExpressions)
    if (!a.isStreaming) {
      WindowedAggregateExec(a.definition, a.keys, a.time, a.order, a.window, aggregates,
        results, planLater(a.child))
    } else {
      val function = a.definition.kind.functionName
      val execution = StreamingQueryContext.currentExecution(session)
      val outputMode = execution.map(_.outputMode)
      if (outputMode.contains(InternalOutputModes.Complete)) {
        WindowErrors.completeModeNotSupported(function)
      }
      // Checked when the query started on Spark 4.0 and later (CheckStreamingWatermarks).
      if (outputMode.contains(InternalOutputModes.Append)) {
        TimeColumnWatermark.checkAppend(function, a.time, TimeColumnWatermark.describe(a), a.child)
      }
      val operatorId = execution.map(StreamingQueryContext.operatorId(_, a))
      val stateInfo = for (ie <- execution; id <- operatorId)
        yield StreamingQueryContext.stateInfo(ie, id, a.keys.nonEmpty)
      // A running query keeps the state format and arrangement its checkpoint records; a new
      // one, or a plan explained outside a query, gets the current ones.
      val conf = session.sessionState.conf
      val newVersion = StateFormatVersion.forNewQuery(conf)
      val (stateFormatVersion, arrangement) = (for (ie <- execution; id <- operatorId) yield {
        val record = WindowOperatorRecord.of(newVersion, a.definition, a.keys,
          a.time, a.order, a.aggregates.map(_.identity), aggregates, outputMode.map(_.toString))
        OperatorRecordCheck.stateFormat(session, ie, id, record)
      }).getOrElse((newVersion, StateArrangement.forNewQuery(conf)))
      execution.foreach(StreamingQueryLog.planned(_, a, stateFormatVersion, arrangement, conf))
      val input = LateRowsPlan.input(session, execution, LateRowsColumns.sliding, stateInfo, a.child, planLater)
      StreamingWindowedAggregateExec(a.definition, a.keys, a.time, a.order, a.window, aggregates,
        results, stateFormatVersion, arrangement, stateInfo, outputMode, None, None,
        IdleSettings(conf).copy(availableNow = MicroBatchInput.availableNow(session)), None,
        input.splitTarget.orElse(LateRowsPlan.target(session, execution, LateRowsColumns.sliding, operatorId,
          LateRowsColumns.written(a.child.output))),
        input.plan)
    }
  }

  /**
   * The aggregate functions the operator computes, and the result expressions over their result
   * attributes: an aggregate column that the optimizer rewrote into an expression over aggregate
   * functions (such as a conversion of an unscaled decimal sum) is computed where it is used.
   */
  private def aggregatesAndResults(
      a: WindowedAggregate,
      resultExpressions: Seq[NamedExpression]): (Seq[AggregateExpression], Seq[NamedExpression]) = {
    val computed: Map[ExprId, Expression] = a.aggregates.collect {
      case column: AggregateColumn if !isItsOwnResult(column) =>
        column.exprId -> column.child.transform { case ae: AggregateExpression => ae.resultAttribute }
    }.toMap
    (a.aggregateExpressions, WindowedAggregate.substitute(resultExpressions, computed))
  }

  /** A column that is the result attribute of its aggregate function, as the node made it. */
  private def isItsOwnResult(column: AggregateColumn): Boolean = column.child match {
    case ae: AggregateExpression => ae.resultId == column.exprId && ae.dataType == column.dataType
    case _ => false
  }
}
