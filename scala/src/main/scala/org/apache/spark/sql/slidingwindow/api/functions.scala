package org.apache.spark.sql.slidingwindow.api

import org.apache.spark.sql.Column
import org.apache.spark.sql.functions.{call_function, col, lit}

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
}
