package org.apache.spark.sql.slidingwindow.analysis

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, Cast, UnixMicros}
import org.apache.spark.sql.catalyst.plans.logical.{AnalysisHelper, LogicalPlan, Window}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.util.{quoteIfNeeded, toPrettySQL}
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.expressions.JvmAggregate
import org.apache.spark.sql.slidingwindow.logical.{StreamingTrailingWindow, TrailingColumn}
import org.apache.spark.sql.types.TimestampNTZType

/**
 * Gives a streaming query's `Window` node of trailing windows ([[TrailingColumn]]) our own logical
 * node, [[StreamingTrailingWindow]], which runs on a stream; any other window function on a
 * stream fails with what a stream runs (a Python or pandas aggregate, with what to use instead). A post-hoc resolution rule: Spark refuses a `Window` on a
 * stream when the query starts, from the analyzed plan (UnsupportedOperationChecker), so the
 * node must be ours by the end of analysis. Frames with the same PARTITION BY on the same time
 * column are one node, whatever their ORDER BY expression.
 */
object PlanStreamingTrailingWindows extends Rule[LogicalPlan] {
  // Every streaming Window of the plan, those of subtrees already analyzed too (which the
  // analyzer's resolveOperators skips): Spark's own analyzer rules that must see the whole plan
  // declare it so, and its tests (Utils.isTesting) refuse a transform in the analyzer otherwise.
  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!plan.resolved || !plan.isStreaming) plan
    else AnalysisHelper.allowInvokingTransformsInAnalyzer(transform(plan))

  private def transform(plan: LogicalPlan): LogicalPlan =
    plan.transformUp {
      case w: Window if w.isStreaming =>
        val columns = w.windowExpressions.map { e =>
          JvmAggregate.firstNotInJvm(e).foreach(ae => WindowErrors.streamingTrailingPythonAggregate(toPrettySQL(e), toPrettySQL(ae)))
          TrailingColumn.of(e, w.orderSpec).getOrElse(WindowErrors.streamingWindowNotTrailing(toPrettySQL(e)))
        }
        // Spark's analyzer orders a Window by attributes, computing any expression below it.
        val order = w.orderSpec.head.child match {
          case a: Attribute => a
          case _ => WindowErrors.streamingWindowNotTrailing(toPrettySQL(w.windowExpressions.head))
        }
        val source = sourceOf(order, w.child)
        if (source.dataType == TimestampNTZType) {
          WindowErrors.trailingOnTimestampNtz(columns.map(_.sql).mkString(", "), quoteIfNeeded(source.name))
        }
        w.child match {
          // Spark makes one Window per ORDER BY expression: frames on `ts` and on `unix_micros(ts)`
          // (the Python helper's) are in one operator all the same, with one state.
          case inner: StreamingTrailingWindow if inner.timeName == source.name &&
              inner.time.metadata == source.metadata &&
              inner.partitionSpec.map(_.canonicalized) == w.partitionSpec.map(_.canonicalized) =>
            inner.copy(windowExpressions = inner.windowExpressions ++ columns)
          case _ =>
            StreamingTrailingWindow(columns, w.partitionSpec, w.orderSpec, order.withMetadata(source.metadata),
              source.name, w.child)
        }
    }

  /**
   * The column whose watermark orders the windows: the ORDER BY column itself, or the TIMESTAMP
   * column it is `unix_micros` of (`sliding_window_agg.trailing_window` orders by `unix_micros(ts)`,
   * which the analyzer computes in a Project below the Window; of a TIMESTAMP_NTZ column, through
   * the cast the analyzer adds).
   */
  private[slidingwindow] def sourceOf(order: Attribute, child: LogicalPlan): Attribute =
    child.flatMap(_.expressions).iterator.flatMap(_.collectFirst {
      case al @ Alias(UnixMicros(t: Attribute), _) if al.exprId == order.exprId => t
      case al @ Alias(UnixMicros(Cast(t: Attribute, _, _, _)), _)
          if al.exprId == order.exprId && t.dataType == TimestampNTZType => t
    }).toSeq.headOption.getOrElse(order)
}
