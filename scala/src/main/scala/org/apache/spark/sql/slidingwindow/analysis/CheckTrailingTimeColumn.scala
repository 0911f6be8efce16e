package org.apache.spark.sql.slidingwindow.analysis

import org.apache.spark.sql.catalyst.expressions.{Ascending, CurrentRow, Literal, RangeFrame, SortOrder, SpecifiedWindowFrame, UnixMicros, WindowSpecDefinition}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.util.toPrettySQL
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.types.LongType

/**
 * A trailing frame as the Python `sliding_window_agg.trailing_window` helper writes it (ordered by
 * `unix_micros(time)`, `RANGE BETWEEN <micros> PRECEDING AND CURRENT ROW`) on a time column
 * `unix_micros` does not take (a STRING; a TIMESTAMP_NTZ on Spark 3.5): refused with what to
 * cast, instead of Spark's type error on `unix_micros`, which the user did not write. A post-hoc
 * resolution rule: the plan is left unresolved by that type error, which CheckAnalysis would
 * report after this batch; every implicit cast the analyzer adds has been added by then.
 */
object CheckTrailingTimeColumn extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!plan.resolved) plan.foreach(_.expressions.foreach(_.foreach {
      case WindowSpecDefinition(_, Seq(SortOrder(order @ UnixMicros(time), Ascending, _, _)),
          SpecifiedWindowFrame(RangeFrame, Literal(_, LongType), CurrentRow))
          if time.resolved && order.checkInputDataTypes().isFailure =>
        WindowErrors.trailingTimeColumn(toPrettySQL(time), time.dataType.sql)
      case _ =>
    }))
    plan
  }
}
