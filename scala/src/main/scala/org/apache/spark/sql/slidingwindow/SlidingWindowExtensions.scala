package org.apache.spark.sql.slidingwindow

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.classic.{SparkSession => ClassicSession}
import org.apache.spark.sql.slidingwindow.analysis.{CheckWindowedAggregates, PlanWindowedAggregates, ResolveWindowedAggregates}
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.expressions.SlidingWindow
import org.apache.spark.sql.slidingwindow.planning.{StreamingWatermarks, WindowedAggregateStrategy}

/**
 * The extension entry point: `spark.sql.extensions=org.apache.spark.sql.slidingwindow.SlidingWindowExtensions`.
 *
 * Registers the SQL function `sliding_window(time, size)`, the analyzer rule and check that turn
 * an aggregation grouped by it into a windowed aggregation, the plan normalization that gives it
 * its own logical node, the planner strategy for that node, and the physical rule that gives the
 * streaming operator its watermarks.
 */
class SlidingWindowExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectFunction(SlidingWindowExtensions.slidingWindowFunction)
    extensions.injectResolutionRule(_ => ResolveWindowedAggregates)
    extensions.injectCheckRule(_ => CheckWindowedAggregates)
    extensions.injectPlanNormalizationRule(_ => PlanWindowedAggregates)
    extensions.injectPlannerStrategy(s => WindowedAggregateStrategy(s.asInstanceOf[ClassicSession]))
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
    (FunctionIdentifier("sliding_window"), slidingWindowInfo, {
      case Seq(time, size) => SlidingWindow(time, size)
      case args => WindowErrors.wrongNumberOfArguments("sliding_window", "2", args.length)
    })
}
