package org.apache.spark.sql.slidingwindow.windows

import org.apache.spark.sql.slidingwindow.aggregation.WindowContents

/** Receives the windows of a group as they close, in start order. */
trait WindowSink {
  /**
   * The window from `start` to `end` (its bounds as the window column shows them) is complete;
   * `contents.aggregate()` is its aggregate. Not asking for it costs nothing.
   */
  def window(start: Long, end: Long, contents: WindowContents): Unit
}
