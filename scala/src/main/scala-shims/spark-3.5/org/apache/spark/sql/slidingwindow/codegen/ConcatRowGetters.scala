package org.apache.spark.sql.slidingwindow.codegen

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Spark 3.5 has only the base set of [[InternalRow]] getters, which [[ConcatRow]] defines itself;
 * later versions add getters here.
 */
abstract class ConcatRowGetters extends InternalRow {
  /** The row holding field `i` of the concatenation, and `i`'s ordinal in it. */
  protected def partOf(i: Int): InternalRow
  protected def ordinalIn(i: Int): Int
}
