package org.apache.spark.sql.slidingwindow.state
package sliding

/**
 * The kind of a state row: the second part of its (group, kind, time) key
 * ([[WindowStateLayout]]). The key stores [[id]], which is part of the checkpoint format: the ids
 * never change, so that checkpoints written by earlier releases keep restarting. The rows of each
 * kind, by state format: docs/state-format.md, section "Rows by format".
 */
sealed abstract class StateRowKind(val id: Int)

object StateRowKind {
  /**
   * The frozen partial aggregate of the group's rows at the row's time (sliding windows), or of
   * its open window starting at the row's time (batch windows, with the group's stream time:
   * [[WindowStateCodec.streamTime]]).
   */
  case object Partial extends StateRowKind(0)

  /**
   * Sliding windows in append mode: an element of the front of the group's Two-Stacks queue, at
   * the row's time the aggregate of the partials from that time to the end of the front.
   */
  case object Suffix extends StateRowKind(1)

  /**
   * Sliding windows in append mode, at time 0: the aggregate of the back of the group's queue,
   * with the last time pushed into the queue ([[WindowStateCodec.lastPushed]]) and the oldest
   * time of the back ([[WindowStateCodec.backOldest]]).
   */
  case object QueueBack extends StateRowKind(2)

  /**
   * State format 2, at time 0: the group's record ([[GroupRecord]]): its QueueBack fields, its next
   * scheduled visit and, while the group is small, its Partial and Suffix rows.
   */
  case object Record extends StateRowKind(3)

  /**
   * State format 2, at the time of its first row: a run of a large group's Partial rows kept out
   * of its record ([[GroupRecord.chunks]]), those its visits do not touch.
   */
  case object PartialChunk extends StateRowKind(4)

  /** State format 2: a run of a large group's Suffix rows kept out of its record, as [[PartialChunk]]. */
  case object SuffixChunk extends StateRowKind(5)

  val all: Seq[StateRowKind] = Seq(Partial, Suffix, QueueBack, Record, PartialChunk, SuffixChunk)

  /** The kind of the chunks of rows of `kind` (state format 2). */
  def chunkOf(kind: StateRowKind): StateRowKind = kind match {
    case Partial => PartialChunk
    case Suffix => SuffixChunk
    case other => throw new IllegalArgumentException(s"$other rows are not kept in chunks")
  }

  /** The kind stored as `id`. */
  def of(id: Int): StateRowKind =
    all.find(_.id == id).getOrElse(throw new IllegalArgumentException(s"unknown state row kind $id"))
}
