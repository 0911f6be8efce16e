package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.sql.catalyst.InternalRow

/**
 * The aggregate of a window's rows in two parts, oldest rows first: `merge(older, newer)`.
 * `older` is a frozen partial, `newer` a working buffer; either may be null (not both). Keeping
 * the two parts apart lets the output row be evaluated from both in one generated projection.
 */
final class AggregateParts {
  var older: InternalRow = _
  var newer: InternalRow = _

  def set(older: InternalRow, newer: InternalRow): Unit = {
    this.older = older
    this.newer = newer
  }
}
