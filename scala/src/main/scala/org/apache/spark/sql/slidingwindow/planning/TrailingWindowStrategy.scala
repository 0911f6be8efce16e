package org.apache.spark.sql.slidingwindow.planning

import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Window}
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.execution.TrailingWindowExec
import org.apache.spark.sql.slidingwindow.expressions.TrailingFrame

/**
 * Plans a batch query's Window operator whose every expression is a trailing window
 * ([[TrailingFrame]]) as a [[TrailingWindowExec]]: the same rows, every frame in O(1) amortized
 * merges. Any other Window is left to Spark, as is every Window when
 * `spark.sql.slidingWindow.trailingWindows.batch` is false.
 */
object TrailingWindowStrategy extends SparkStrategy {
  val enabledKey = "spark.sql.slidingWindow.trailingWindows.batch"

  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case w: Window if !w.isStreaming && enabled =>
      val frames = w.windowExpressions.map(TrailingFrame.of(_, w.orderSpec))
      if (frames.nonEmpty && frames.forall(_.isDefined)) {
        TrailingWindowExec(w.windowExpressions, w.partitionSpec, w.orderSpec, planLater(w.child)) :: Nil
      } else {
        Nil
      }
    case _ => Nil
  }

  private def enabled: Boolean = SQLConf.get.getConfString(enabledKey, "true").trim.toBoolean
}
