package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * Pre-aggregates the rows of one time into a frozen partial: [[begin]] with the first row, [[add]]
 * the others, then [[result]]. With declarative aggregates, a time with a single row (the common
 * case) costs one generated projection; more rows go through a working buffer.
 */
final class PartialBuilder(buffers: AggregateBuffers) {
  private val working = buffers.newBuffer()
  // Owns its bytes (copyFrom reuses them), so the result survives other projections.
  private val frozen: UnsafeRow = buffers.freeze(buffers.newBuffer()).copy()
  private var rows = 0
  private var done = false

  /** Starts a new partial with its first row. */
  def begin(row: InternalRow): Unit = {
    rows = 1
    done = buffers.declarative
    if (done) {
      frozen.copyFrom(buffers.partialOfRow(row))
    } else {
      buffers.initialize(working)
      buffers.update(working, row)
    }
  }

  /** Adds another row of the same time. */
  def add(row: InternalRow): Unit = {
    if (done) { // declarative, one row so far: continue from its partial
      buffers.assign(working, frozen)
      done = false
    }
    buffers.update(working, row)
    rows += 1
  }

  /** The frozen partial of the rows since [[begin]]: valid until the next [[begin]]. */
  def result: UnsafeRow = {
    if (!done) {
      frozen.copyFrom(buffers.freeze(working))
      done = true
    }
    frozen
  }
}
