package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * The rows of a group, by kind and time ([[StateRowKind]]), as a window processor reads and
 * writes them: in state format 2 those of the group open ([[WindowState.open]]), wherever they
 * live (its record, its chunks, rows of their own).
 */
trait GroupRows {
  /** The value of a row, or null. Valid until the next read. */
  def get(group: InternalRow, kind: StateRowKind, time: Long): UnsafeRow

  /** Writes a row, new or not. */
  def put(group: InternalRow, kind: StateRowKind, time: Long, value: UnsafeRow): Unit

  /** Writes a row the group does not have yet ([[put]], where the caller knows it is new). */
  def insert(group: InternalRow, kind: StateRowKind, time: Long, value: UnsafeRow): Unit

  /** Removes a row the group has. */
  def remove(group: InternalRow, kind: StateRowKind, time: Long): Unit

  /** A group's rows of `kind` with `from <= time <= to`, in ascending time. */
  def rows(group: InternalRow, kind: StateRowKind, from: Long, to: Long): RowCursor
}
