package org.apache.spark.sql.slidingwindow.codegen

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.{BinaryView, VariantVal}

/**
 * The getters of [[InternalRow]] that Spark 4.2 adds to the base set of Spark 3.5, for [[ConcatRow]]:
 * each reads the part of the concatenation that holds field `i`.
 */
abstract class ConcatRowGetters extends InternalRow {
  /** The row holding field `i` of the concatenation, and `i`'s ordinal in it. */
  protected def partOf(i: Int): InternalRow
  protected def ordinalIn(i: Int): Int

  override def getVariant(i: Int): VariantVal = partOf(i).getVariant(ordinalIn(i))
  override def getBinaryView(i: Int): BinaryView = partOf(i).getBinaryView(ordinalIn(i))
}
