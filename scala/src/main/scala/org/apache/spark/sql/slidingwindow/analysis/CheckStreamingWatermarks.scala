package org.apache.spark.sql.slidingwindow.analysis

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.streaming.{InternalOutputModes, WriteToStreamStatement}
import org.apache.spark.sql.slidingwindow.logical.{StreamingTrailingWindow, WindowGrouping}
import org.apache.spark.sql.slidingwindow.expressions.WindowPruning

/**
 * Checks a streaming query when it starts (`writeStream...start()`), where its output mode is
 * first known: in the Append mode, the time column of each windowed aggregation must have the
 * watermark, not another column ([[TimeColumnWatermark.checkAppend]]); trailing windows need the
 * Append mode and a watermark on their ORDER BY column ([[StreamingTrailingWindowChecks]]).
 *
 * Spark checks the query in the same analysis, in its rule ResolveWriteToStream (the
 * UnsupportedOperationChecker), which rejects an append-mode aggregation none of whose grouping
 * columns has a watermark, with a message that does not say which column needs one; and which
 * lets a query run that also groups by the watermarked column, whose windows would then never
 * be emitted. This rule runs before it, as a hint resolution rule (the batch before resolution),
 * on Spark 4.0 and later; Spark 3.5 has no such rules, and the planner then makes the same check
 * when the first micro-batch is planned.
 */
object CheckStreamingWatermarks extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = {
    plan match {
      case s: WriteToStreamStatement =>
        val appendWindows = s.outputMode == InternalOutputModes.Append && WindowPruning.mayGroupByWindow(s.inputQuery)
        s.inputQuery.foreach {
          case AggregateNode(_, _, g: WindowGrouping) if appendWindows && g.isStreaming =>
            TimeColumnWatermark.checkAppend(
              g.definition.kind.functionName, g.time, TimeColumnWatermark.describe(g.time), g.child)
          case w: StreamingTrailingWindow => StreamingTrailingWindowChecks(w, s.outputMode)
          case _ =>
        }
      case _ =>
    }
    plan
  }
}
