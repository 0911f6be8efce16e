package org.apache.spark.sql.slidingwindow.planning

import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, LogicalPlan}
import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession

/** What a micro-batch reads, as its planning sees it. */
object MicroBatchInput {
  /**
   * Whether the micro-batch's input has rows: Spark plans each streaming source without new data
   * as an empty streaming `LocalRelation`, and a micro-batch that runs without new data (for
   * operators that asked for one) reads only those.
   */
  def hasRows(plan: LogicalPlan): Boolean = plan.collectLeaves().exists { leaf =>
    leaf.isStreaming && (leaf match {
      case local: LocalRelation => local.data.nonEmpty
      case _ => true
    })
  }

  /** Whether the query the stream thread runs was started with `Trigger.AvailableNow`. */
  def availableNow(session: SparkSession): Boolean =
    StreamingQueryContext.currentQuery(session).exists(_.trigger.getClass.getName.endsWith(".AvailableNowTrigger$"))
}
