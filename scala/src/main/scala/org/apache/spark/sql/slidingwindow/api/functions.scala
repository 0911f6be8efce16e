package org.apache.spark.sql.slidingwindow.api

import org.apache.spark.sql.Column
import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.expressions.{Window, WindowSpec}
import org.apache.spark.sql.functions.{call_function, col, lit, unix_micros}
import org.apache.spark.sql.slidingwindow.expressions.WindowSize

/**
 * Scala API, for `groupBy`: `df.groupBy($"k", sliding_window($"ts", "10 seconds")).agg(...)`.
 * The columns call the SQL functions by name, so they work on Spark Connect too; the session
 * must have `SlidingWindowExtensions` loaded.
 */
object functions {
  /** KIP-450 sliding windows of `size` (e.g. "10 seconds") over `timeColumn`. */
  def sliding_window(timeColumn: Column, size: String): Column =
    call_function("sliding_window", timeColumn, lit(size))

  /** KIP-450 sliding windows of `size` (e.g. "10 seconds") over the column named `timeColumn`. */
  def sliding_window(timeColumn: String, size: String): Column =
    sliding_window(col(timeColumn), size)

  /**
   * Batch windows of `size` (e.g. "5 seconds"): tumbling windows chosen by each group's stream
   * time, so that late rows go to the current window; rows are applied in time order.
   */
  def batch_window(timeColumn: Column, size: String): Column =
    call_function("batch_window", timeColumn, lit(size))

  /** Batch windows of `size`, rows applied in the order of `order` (such as a source offset). */
  def batch_window(timeColumn: Column, size: String, order: Column): Column =
    call_function("batch_window", timeColumn, lit(size), order)

  /** Batch windows of `size` over the column named `timeColumn`, rows applied in time order. */
  def batch_window(timeColumn: String, size: String): Column =
    batch_window(col(timeColumn), size)

  /** Batch windows of `size` over `timeColumn`, rows applied in the order of column `order`. */
  def batch_window(timeColumn: String, size: String, order: String): Column =
    batch_window(col(timeColumn), size, col(order))

  /**
   * The window of each row's trailing `size` (e.g. "10 minutes"), for `agg.over(...)`: the rows
   * of its partition whose time is in `[t - size, t]`, its peers included. `rangeBetween` takes
   * numbers only, so the frame orders by `unix_micros(timeColumn)` (a TIMESTAMP) and spans `size`
   * in microseconds: the rows of SQL's `RANGE BETWEEN INTERVAL size PRECEDING AND CURRENT ROW`.
   * A batch query runs it in the extension's TrailingWindow operator; a streaming one, with a
   * watermark on `timeColumn` in the Append mode, in its StreamingTrailingWindow operator.
   */
  def trailing_window(partitionBy: Seq[Column], timeColumn: Column, size: String): WindowSpec =
    Window.partitionBy(partitionBy: _*).orderBy(unix_micros(timeColumn))
      .rangeBetween(-WindowSize.toMicros("trailing_window", Literal(size)), Window.currentRow)

  /** [[trailing_window]] over columns named `partitionBy` and `timeColumn`. */
  def trailing_window(partitionBy: Seq[String], timeColumn: String, size: String): WindowSpec =
    trailing_window(partitionBy.map(col), col(timeColumn), size)
}
