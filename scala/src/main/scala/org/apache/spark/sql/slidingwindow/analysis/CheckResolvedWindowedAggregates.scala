package org.apache.spark.sql.slidingwindow.analysis

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule

/**
 * Runs [[CheckWindowedAggregates]] as a post-hoc resolution rule, once the analyzer has resolved
 * the plan and before CheckAnalysis. Spark 4.3 wraps every AnalysisException that a check rule
 * raises into an ExtendedAnalysisException, which keeps the error condition but drops the
 * SQLSTATE that the extension's exceptions carry (Spark's own conditions find theirs again in
 * Spark's list; ours are not in it). Raised here, the errors reach the user as they are.
 *
 * A plan that is not resolved yet (an unknown column, ...) is left to CheckAnalysis, which reports
 * Spark's error first; the check rule is still registered for what this rule does not see.
 */
object CheckResolvedWindowedAggregates extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (plan.resolved) CheckWindowedAggregates(plan)
    plan
  }
}
