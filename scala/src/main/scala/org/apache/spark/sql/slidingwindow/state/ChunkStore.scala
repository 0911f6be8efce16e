package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * Where a group's cold part is kept in chunk rows of its own, read and written a chunk at a
 * time, so that the row every visit reads and writes stays small: the runs of a large group's
 * rows out of its record (sliding windows, [[sliding.RecordChunks]]: a series per row kind, a
 * chunk at its first time) and the older elements of a group's frames' stacks (trailing windows,
 * [[trailing.FramesRows]]: a series per stack, its chunks numbered from 0). The layer above counts
 * the rows in the state's ledger: it knows whether a put creates a row or replaces one.
 */
trait ChunkStore {
  /** The value of chunk `index` of the group's `series`, or null; valid until the next call. */
  def get(group: InternalRow, series: Int, index: Long): UnsafeRow

  def put(group: InternalRow, series: Int, index: Long, value: UnsafeRow): Unit

  def remove(group: InternalRow, series: Int, index: Long): Unit
}
