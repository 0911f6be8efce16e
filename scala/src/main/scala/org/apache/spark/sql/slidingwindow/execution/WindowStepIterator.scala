package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Output rows computed in bounded steps of work, each of which emits at most one row: `hasNext`
 * takes steps until a row is ready or no work is left. One new time, or one watermark, can close
 * millions of windows; they are handed on one at a time, never collected, in batch queries
 * ([[WindowedAggregationIterator]]) and in streams ([[StreamingWindowsProcessor]]) alike.
 *
 * As in Spark's operators, the row returned may be reused by the next one: a consumer that keeps
 * rows copies them.
 */
abstract class WindowStepIterator extends Iterator[InternalRow] {
  private var ready: InternalRow = _
  private var done = false

  /** One bounded piece of work, which emits at most one row; returns false once none is left. */
  protected def step(): Boolean

  /** Hands on one row, the only one of this step. */
  protected final def emit(row: InternalRow): Unit = {
    assert(ready == null, "two rows emitted in one step")
    ready = row
  }

  /** Whether this step has emitted its row. */
  protected final def emitted: Boolean = ready != null

  override final def hasNext: Boolean = {
    while (ready == null && !done) done = !step()
    ready != null
  }

  override final def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException
    val row = ready
    ready = null
    row
  }
}
