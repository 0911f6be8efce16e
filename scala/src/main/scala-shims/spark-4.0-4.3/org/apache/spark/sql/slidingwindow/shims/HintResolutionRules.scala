package org.apache.spark.sql.slidingwindow.shims

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule

/**
 * Rules of the analyzer's "Hints" batch, which runs before its resolution batch: the only
 * extension point before Spark's own ResolveWriteToStream checks a streaming query's output mode.
 */
object HintResolutionRules {
  def inject(extensions: SparkSessionExtensions, rule: Rule[LogicalPlan]): Unit =
    extensions.injectHintResolutionRule(_ => rule)
}
