package org.apache.spark.sql.slidingwindow.analysis

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, Expression, UnixMicros}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Window}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.util.toPrettySQL
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.logical.{StreamingTrailingWindow, TrailingColumn}
import org.apache.spark.sql.types.TimestampType

/**
 * Gives a streaming query's `Window` node of trailing windows ([[TrailingColumn]]) our own logical
 * node, [[StreamingTrailingWindow]], which runs on a stream; any other window function on a
 * stream fails with what a stream runs. A post-hoc resolution rule: Spark refuses a `Window` on a
 * stream when the query starts, from the analyzed plan (UnsupportedOperationChecker), so the
 * node must be ours by the end of analysis.
 */
object PlanStreamingTrailingWindows extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!plan.resolved || !plan.isStreaming) plan
    else plan.transformUp {
      case w: Window if w.isStreaming =>
        val columns = w.windowExpressions.map { e =>
          TrailingColumn.of(e, w.orderSpec).getOrElse(WindowErrors.streamingWindowNotTrailing(toPrettySQL(e)))
        }
        StreamingTrailingWindow(columns, w.partitionSpec, w.orderSpec, timeColumn(w.orderSpec.head.child, w.child), w.child)
    }

  /**
   * The column whose watermark orders the windows: the ORDER BY column itself, or the TIMESTAMP
   * column it is `unix_micros` of (`sliding_window_agg.trailing_window` orders by `unix_micros(ts)`,
   * which the analyzer computes in a Project below the Window).
   */
  private def timeColumn(order: Expression, child: LogicalPlan): Attribute = order match {
    case a: Attribute if a.dataType == TimestampType => a
    case a: Attribute => sourceOf(a, child)
    case UnixMicros(t: Attribute) => t
    case other => throw new IllegalStateException(s"unexpected ORDER BY of a trailing window: $other")
  }

  /** The TIMESTAMP column `a` is computed from by `unix_micros`, else `a`. */
  private def sourceOf(a: Attribute, child: LogicalPlan): Attribute =
    child.flatMap(_.expressions).iterator.flatMap(_.collectFirst {
      case al @ Alias(UnixMicros(t: Attribute), _) if al.exprId == a.exprId => t
    }).toSeq.headOption.getOrElse(a)
}
