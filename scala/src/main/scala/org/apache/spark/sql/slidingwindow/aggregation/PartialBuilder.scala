package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * Pre-aggregates the rows of one time into a frozen partial: [[begin]] with the first row, [[add]]
 * the others, then [[result]]. With declarative aggregates, a time with a single row (the common
 * case) costs one generated projection; more rows go through a working buffer.
 *
 * The result is owned by the builder (its own projection's row or working buffer) and stays valid
 * until its next [[begin]], so two builders can take turns without copying.
 */
final class PartialBuilder(buffers: AggregateBuffers) {
  private val working = buffers.newBuffer()
  private val ofRow = buffers.newPartialOfRow()
  private var single: UnsafeRow = _ // the partial of the first row, while it is the only one
  private var frozen: UnsafeRow = _
  // Where a frozen working buffer is copied when freezing goes through a shared projection.
  private val owned: UnsafeRow = buffers.freeze(buffers.newBuffer()).copy()

  /** Starts a new partial with its first row. */
  def begin(row: InternalRow): Unit = {
    frozen = null
    if (ofRow.isDefined) {
      single = ofRow.get(row)
    } else {
      single = null
      buffers.initialize(working)
      buffers.update(working, row)
    }
  }

  /** Adds another row of the same time. */
  def add(row: InternalRow): Unit = {
    if (single != null) { // continue from the first row's partial
      buffers.assign(working, single)
      single = null
    }
    buffers.update(working, row)
  }

  /** The frozen partial of the rows since [[begin]]: valid until the next [[begin]]. */
  def result: UnsafeRow = {
    if (single != null) {
      single
    } else {
      if (frozen == null) {
        frozen = buffers.freeze(working)
        if (frozen ne working) { // the freeze projection's row, shared: keep a copy
          owned.copyFrom(frozen)
          frozen = owned
        }
      }
      frozen
    }
  }
}
