package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.sql.catalyst.InternalRow

/**
 * One micro-batch of one partition of streaming trailing windows, over the state of its format
 * version, chosen once from the query's checkpoint: [[TrailingRowsProcessor]] (format 1) or
 * [[TrailingFramesProcessor]] (formats 2 and 3). [[process]] keeps the input rows and returns the
 * rows emitted, with their windows; [[finish]], once they are all read, leaves the state as the
 * next micro-batch needs it.
 */
trait TrailingStateProcessor {
  def process(input: Iterator[InternalRow]): Iterator[InternalRow]
  def finish(): Unit

  def droppedLateRows: Long
  def rowsWritten: Long
  def rowsRemoved: Long
  def rowsRead: Long

  /** The store's rows, where the operator counts them (state formats 2 and 3), once [[finish]]ed. */
  def rowCount: Option[Long] = None
}
