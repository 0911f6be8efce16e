package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.sql.catalyst.InternalRow

/** The rows of one window, aggregated on demand: asking costs nothing until it is done. */
trait WindowContents {
  /**
   * The aggregate of the window's rows, for [[AggregateBuffers.evaluate]] only (it may be the
   * queue's own buffer): valid until the window changes.
   */
  def aggregate(): InternalRow
}
