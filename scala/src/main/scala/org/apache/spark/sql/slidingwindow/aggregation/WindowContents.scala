package org.apache.spark.sql.slidingwindow.aggregation

/** The rows of one window, aggregated on demand: asking costs nothing until it is done. */
trait WindowContents {
  /** Sets `parts` to the window's aggregate, valid until the window changes. */
  def aggregate(parts: AggregateParts): Unit
}
