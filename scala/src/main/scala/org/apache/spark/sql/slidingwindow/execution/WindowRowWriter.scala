package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, GenericInternalRow, JoinedRow, UnsafeProjection, UnsafeRow}

/** Builds the output row of one window: the group's keys, `struct(start, end)`, the results. */
final class WindowRowWriter(output: Seq[Attribute]) {
  private val projection = UnsafeProjection.create(output.map(_.dataType).toArray)
  private val bounds = new GenericInternalRow(2)
  private val windowColumn = new GenericInternalRow(Array[Any](bounds))
  private val keyAndWindow = new JoinedRow
  private val all = new JoinedRow

  /** The row, copied: it stays valid after the next call. */
  def write(key: InternalRow, start: Long, end: Long, results: InternalRow): UnsafeRow = {
    bounds.setLong(0, start)
    bounds.setLong(1, end)
    projection(all(keyAndWindow(key, windowColumn), results)).copy()
  }
}
