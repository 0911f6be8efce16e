package org.apache.spark.sql.slidingwindow.planning

import org.apache.spark.sql.catalyst.expressions.NamedExpression
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.catalyst.streaming.InternalOutputModes
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.execution.{StreamingWindowedAggregateExec, WindowedAggregateExec}
import org.apache.spark.sql.slidingwindow.logical.WindowedAggregate

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

  private def planAggregate(a: WindowedAggregate, resultExpressions: Seq[NamedExpression]): SparkPlan =
    if (!a.isStreaming) {
      WindowedAggregateExec(a.definition, a.keys, a.time, a.order, a.window, a.aggregates,
        resultExpressions, planLater(a.child))
    } else {
      val function = a.definition.kind.functionName
      val execution = StreamingQueryContext.currentExecution(session)
      val outputMode = execution.map(_.outputMode)
      if (outputMode.contains(InternalOutputModes.Complete)) {
        WindowErrors.completeModeNotSupported(function)
      }
      val stateInfo = execution.map { ie =>
        StreamingQueryContext.stateInfo(ie, StreamingQueryContext.operatorId(ie, a), a.keys.nonEmpty)
      }
      StreamingWindowedAggregateExec(a.definition, a.keys, a.time, a.order, a.window, a.aggregates,
        resultExpressions, stateInfo, outputMode, None, None, planLater(a.child))
    }
}
