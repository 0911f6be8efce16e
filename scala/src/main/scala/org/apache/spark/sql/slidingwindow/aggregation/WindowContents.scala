package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.sql.catalyst.InternalRow

/** The rows of one window, aggregated on demand: asking costs nothing until it is done. */
trait WindowContents {
  /** A working buffer with the aggregate of the window's rows, valid until the window changes. */
  def aggregate(): InternalRow
}
