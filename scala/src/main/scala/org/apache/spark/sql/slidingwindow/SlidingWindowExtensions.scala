package org.apache.spark.sql.slidingwindow

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo, NamedArgumentExpression}
import org.apache.spark.sql.slidingwindow.shims.ClassicSession.{SparkSession => ClassicSession}
import org.apache.spark.sql.slidingwindow.analysis.{CheckResolvedWindowedAggregates, CheckStreamingWatermarks, CheckTrailingTimeColumn, CheckWindowedAggregates, PlanLateRowsSplit, PlanStreamingTrailingWindows, PlanWindowedAggregates, ResolveWindowedAggregates}
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.expressions.{BatchWindow, SlidingWindow}
import org.apache.spark.sql.slidingwindow.idle.QuietTailAtRestart
import org.apache.spark.sql.slidingwindow.optimizer.PruneWindowedAggregateInput
import org.apache.spark.sql.slidingwindow.planning.{StreamingWatermarks, TrailingWindowStrategy, WindowedAggregateStrategy}
import org.apache.spark.sql.slidingwindow.shims.HintResolutionRules

/**
 * The extension entry point: `spark.sql.extensions=org.apache.spark.sql.slidingwindow.SlidingWindowExtensions`.
 *
 * First checks that the jar was built for this Spark's minor version ([[JarBuildInfo]]). Then
 * registers the SQL functions `sliding_window(time, size)` and `batch_window(time, size[, order])`,
 * the analyzer rule and check that turn an aggregation grouped by it into a windowed aggregation,
 * the check of a streaming query's watermark when it starts (Spark 4.0 and later), the listener
 * that makes the idle close go on after a restart ([[QuietTailAtRestart]]), the check of the
 * Python trailing_window helper's time column, the plan normalization that gives it its own
 * logical node, the rule that gives trailing windows
 * on a stream theirs, the optimizer rule that prunes its
 * input, the planner strategy for that node, and the physical rule that gives the streaming
 * operator its watermarks.
 */
class SlidingWindowExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    JarBuildInfo.checkRunningSpark()
    extensions.injectFunction(SlidingWindowExtensions.slidingWindowFunction)
    extensions.injectFunction(SlidingWindowExtensions.batchWindowFunction)
    HintResolutionRules.inject(extensions, CheckStreamingWatermarks)
    extensions.injectResolutionRule(_ => ResolveWindowedAggregates)
    extensions.injectPostHocResolutionRule(_ => CheckResolvedWindowedAggregates)
    extensions.injectPostHocResolutionRule(_ => CheckTrailingTimeColumn)
    extensions.injectPostHocResolutionRule(_ => PlanStreamingTrailingWindows)
    extensions.injectCheckRule(_ => CheckWindowedAggregates)
    extensions.injectCheckRule(s => plan => QuietTailAtRestart.register(s.asInstanceOf[ClassicSession], plan))
    extensions.injectPlanNormalizationRule(_ => PlanWindowedAggregates)
    extensions.injectPlanNormalizationRule(s => PlanLateRowsSplit(s.asInstanceOf[ClassicSession]))
    extensions.injectOptimizerRule(_ => PruneWindowedAggregateInput)
    extensions.injectPlannerStrategy(s => WindowedAggregateStrategy(s.asInstanceOf[ClassicSession]))
    extensions.injectPlannerStrategy(s => TrailingWindowStrategy(s.asInstanceOf[ClassicSession]))
    extensions.injectColumnar(s => StreamingWatermarks(s.asInstanceOf[ClassicSession]))
  }
}

object SlidingWindowExtensions {
  private val slidingWindowInfo = new ExpressionInfo(
    classOf[SlidingWindow].getCanonicalName, null, "sliding_window",
    "sliding_window(time, size) - Groups rows into the KIP-450 sliding windows of `size` over " +
      "`time`: one window per distinct set of rows that a window of `size` can hold, both bounds " +
      "inclusive. Only valid in the GROUP BY list of an aggregation.",
    """
    Arguments:
      * time - a TIMESTAMP or TIMESTAMP_NTZ column; rows with a null time belong to no window.
      * size - a positive fixed-length duration: a string such as '10 seconds' or an interval.
  """,
    """
    Examples:
      > SELECT k, sliding_window(ts, '10 seconds') AS w, count(*) FROM events GROUP BY k, sliding_window(ts, '10 seconds');
  """,
    "", "agg_funcs", "0.1.0", "", "built-in")

  val slidingWindowFunction: (FunctionIdentifier, ExpressionInfo, Seq[Expression] => Expression) =
    (FunctionIdentifier("sliding_window"), slidingWindowInfo, positional("sliding_window", "sliding_window(time, size)", {
      case Seq(time, size) => SlidingWindow(time, size)
      case args =>
        WindowErrors.wrongNumberOfArguments("sliding_window", "2", "sliding_window(time, size)", args.length)
    }))

  private val batchWindowInfo = new ExpressionInfo(
    classOf[BatchWindow].getCanonicalName, null, "batch_window",
    "batch_window(time, size[, order]) - Groups rows into tumbling windows of `size` chosen by " +
      "the group's stream time (the largest `time` seen so far, and the watermark in a stream) " +
      "when each row is applied, so that late rows go to the current window instead of being " +
      "dropped. Only valid in the GROUP BY list of an aggregation.",
    """
    Arguments:
      * time - a TIMESTAMP or TIMESTAMP_NTZ column; rows with a null time belong to no window.
      * size - a positive fixed-length duration: a string such as '5 seconds' or an interval.
      * order - optional: a sortable column giving the order rows are applied in (such as a
          source offset); by default rows are applied in time order.
  """,
    """
    Examples:
      > SELECT k, batch_window(ts, '5 seconds') AS w, collect_list(v) FROM events GROUP BY k, batch_window(ts, '5 seconds');
  """,
    "", "agg_funcs", "0.1.0", "", "built-in")

  val batchWindowFunction: (FunctionIdentifier, ExpressionInfo, Seq[Expression] => Expression) =
    (FunctionIdentifier("batch_window"), batchWindowInfo, positional("batch_window", "batch_window(time, size[, order])", {
      case Seq(time, size) => BatchWindow(time, size, None)
      case Seq(time, size, order) => BatchWindow(time, size, Some(order))
      case args =>
        WindowErrors.wrongNumberOfArguments(
          "batch_window", "2 or 3", "batch_window(time, size[, order])", args.length)
    }))

  /** A builder that takes arguments by position only (`name => value` is an error). */
  private def positional(
      function: String,
      usage: String,
      build: Seq[Expression] => Expression): Seq[Expression] => Expression =
    args => {
      if (args.exists(_.isInstanceOf[NamedArgumentExpression])) WindowErrors.namedArguments(function, usage)
      build(args)
    }
}
