package org.apache.spark.sql.slidingwindow.planning

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.slidingwindow.execution.WindowedAggregateExec
import org.apache.spark.sql.slidingwindow.logical.WindowedAggregate

/** Plans a [[WindowedAggregate]] of a batch query as a [[WindowedAggregateExec]]. */
object WindowedAggregateStrategy extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case a: WindowedAggregate if !a.isStreaming =>
      WindowedAggregateExec(a.definition, a.keys, a.time, a.window, a.aggregates,
        planLater(a.child)) :: Nil
    case _ => Nil
  }
}
