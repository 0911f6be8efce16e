package org.apache.spark.sql.slidingwindow.windows

import org.apache.spark.sql.slidingwindow.aggregation.TwoStacks

/** Receives the windows a sweep closes, in start order. */
trait WindowSink {
  /**
   * The window [start, end] (both inclusive) is complete; `contents` holds exactly its rows'
   * partials, so `contents.aggregate()` is its aggregate. Not calling it costs nothing.
   */
  def window(start: Long, end: Long, contents: TwoStacks): Unit
}
