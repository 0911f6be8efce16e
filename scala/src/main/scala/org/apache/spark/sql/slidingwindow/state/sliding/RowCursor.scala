package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/** A forward cursor over (time, value) rows: `next()` moves to the next row, if any. */
abstract class RowCursor {
  private var currentTime = 0L
  private var currentValue: UnsafeRow = _

  def next(): Boolean
  def close(): Unit = ()

  /** Time and value of the current row; the value is valid until `next()`. */
  def time: Long = currentTime
  def value: UnsafeRow = currentValue

  /** The buffer of the current row's value ([[WindowStateCodec.buffer]]), valid until `next()`. */
  def buffer(codec: WindowStateCodec): UnsafeRow = codec.buffer(value)

  protected def set(time: Long, value: UnsafeRow): Unit = {
    currentTime = time
    currentValue = value
  }
}

object RowCursor {
  def of(rows: Iterator[(Long, UnsafeRow)]): RowCursor = new RowCursor {
    override def next(): Boolean =
      if (rows.hasNext) { val (t, v) = rows.next(); set(t, v); true } else false
  }
}
