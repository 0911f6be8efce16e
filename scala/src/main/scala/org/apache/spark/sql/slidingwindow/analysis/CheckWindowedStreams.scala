package org.apache.spark.sql.slidingwindow.analysis

import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, LogicalPlan}
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.logical.WindowGrouping

/** Window aggregations on streaming DataFrames are not available in this version. */
object CheckWindowedStreams extends (LogicalPlan => Unit) {
  override def apply(plan: LogicalPlan): Unit = plan.foreach {
    case Aggregate(_, _, g: WindowGrouping, _) if g.isStreaming =>
      WindowErrors.streamingNotSupported(g.definition.kind.functionName)
    case _ =>
  }
}
