package org.apache.spark.sql.slidingwindow.state
package trailing

import org.apache.spark.sql.slidingwindow.state.sliding.Chunk

/**
 * The kind of a state row of streaming trailing windows: the first part of its
 * `(__kind, __bucket, group, __time, __seq)` key ([[TrailingStateLayout]]). The key stores [[id]],
 * part of the checkpoint format: the ids never change. What each kind's `__bytes` hold:
 * docs/state-format.md, section "Trailing windows".
 */
sealed abstract class TrailingRowKind(val id: Int)

object TrailingRowKind {
  /**
   * At (bucket, group, 0, seq): a part, the rows of one group and bucket (a second of their time)
   * that one micro-batch kept waiting for the watermark ([[PendingParts]]).
   */
  case object Pending extends TrailingRowKind(0)

  /** At (0, group, 0, 0): a group's frames ([[FramesRows]], [[org.apache.spark.sql.slidingwindow.stored.StoredFrames]]). */
  case object Frames extends TrailingRowKind(1)

  /**
   * At (0, group, stack, chunk): a run of older elements of one of a group's frames' stacks
   * ([[StoredStack]]).
   */
  case object Chunk extends TrailingRowKind(2)

  /** One row, with null partition keys: the store's row count and the next sweep ([[TrailingSummary]]). */
  case object Summary extends TrailingRowKind(3)

  val all: Seq[TrailingRowKind] = Seq(Pending, Frames, Chunk, Summary)

  /** The kind stored as `id`. */
  def of(id: Int): TrailingRowKind =
    all.find(_.id == id).getOrElse(throw new IllegalArgumentException(s"unknown trailing state row kind $id"))
}
