package org.apache.spark.sql.slidingwindow.shims

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule

/**
 * Spark 3.5 has no extension point in the analyzer's "Hints" batch (`injectHintResolutionRule`
 * came with Spark 4.0), the only one before Spark's own ResolveWriteToStream: the rule is not
 * injected, and what it checks is checked later, when the first micro-batch is planned.
 */
object HintResolutionRules {
  def inject(extensions: SparkSessionExtensions, rule: Rule[LogicalPlan]): Unit = ()
}
