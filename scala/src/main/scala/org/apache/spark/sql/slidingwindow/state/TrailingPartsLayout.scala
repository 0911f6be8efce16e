package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * State format 3 of streaming trailing windows: the keys, values and kinds of format 2
 * ([[TrailingFramesLayout]]), but a Pending row holds a part, the rows of one group and bucket
 * that one micro-batch kept ([[PendingParts]]), not one input row.
 */
final class TrailingPartsLayout(partitionSpec: Seq[Expression], input: Seq[Attribute])
  extends TrailingFramesLayout(partitionSpec, input, 3) {

  /** The Pending rows of one task and micro-batch, in parts of at most `partBytes` of rows. */
  override def pendingRows(store: StateStore, lateMicros: Long, evictionMicros: Long, partBytes: Long): PendingRows =
    new PendingParts(store, this, lateMicros, evictionMicros, partBytes)
}
