package org.apache.spark.sql.slidingwindow.analysis

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, Expression, NamedExpression}
import org.apache.spark.sql.catalyst.plans.logical.{EventTimeWatermark, LogicalPlan}
import org.apache.spark.sql.catalyst.util.{quoteIfNeeded, toPrettySQL}
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.logical.WindowedAggregate

/**
 * Whether the time column of a streaming windowed aggregation has a watermark, and the columns
 * that have one when it has not: only a watermark on the time column (`withWatermark` on it, or
 * on the column it renames) closes windows, expires state and drops late rows; one on another
 * column does nothing for the aggregation.
 */
object TimeColumnWatermark {

  def onTime(time: Expression): Boolean = time match {
    case n: NamedExpression => n.metadata.contains(EventTimeWatermark.delayKey)
    case _ => false
  }

  /** The columns `withWatermark` was called on in `input`, by name, each once. */
  def declared(input: LogicalPlan): Seq[String] =
    input.collect { case w: EventTimeWatermark => quoteIfNeeded(w.eventTime.name) }.distinct

  /** The time column as the user wrote it: a column's name, or an expression's SQL (unqualified). */
  def describe(time: Expression): String = time match {
    case a: Attribute => quoteIfNeeded(a.name)
    case a: Alias => describe(a.child)
    case other => toPrettySQL(other)
  }

  /**
   * In the Append output mode: a time column without a watermark, while the query has one on
   * other columns, fails with what to change. (Without any watermark, Spark's own check has
   * rejected the query when it started, with a message that says so.)
   */
  def checkAppend(function: String, time: Expression, timeColumn: => String, input: LogicalPlan): Unit =
    if (!onTime(time)) {
      val watermarked = declared(input)
      if (watermarked.nonEmpty) WindowErrors.watermarkNotOnTimeColumn(function, timeColumn, watermarked)
    }

  /**
   * The time column of a planned aggregation as the user wrote it: a time computed by an
   * expression is a column of its input, `__window_time`, computed by an Alias below it.
   */
  def describe(a: WindowedAggregate): String =
    if (a.time.name != PlanWindowedAggregates.computedTime) describe(a.time)
    else a.child.flatMap(_.expressions).iterator
      .flatMap(_.collectFirst { case al: Alias if al.exprId == a.time.exprId => al.child })
      .toSeq.headOption.map(describe).getOrElse(describe(a.time))
}
