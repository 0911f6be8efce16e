package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * The state of one micro-batch of one partition of a streaming windowed aggregation, over its
 * state store ([[WindowStateLayout]]), as Spark's state managers are over theirs: one class per
 * state format version ([[WindowStateV1]], [[WindowStateV2]]), chosen once from the version the
 * query's checkpoint records ([[StateFormatVersion]]). A window processor works on one group at a
 * time, between [[open]] and [[close]], through two narrow views: the group's [[rows]] and the
 * [[timers]] that say when each group must be visited again. What differs between versions, the
 * processors ask of the state ([[flipsRemovePartials]], [[claimsVisitsAtIngestion]],
 * [[resweepable]]), never of a flag.
 *
 * What each version holds, and its invariants: docs/state-format.md.
 */
abstract class WindowState private[state] (store: StateStore, val layout: WindowStateLayout)
  extends OperatorState(store) {
  val codec: WindowStateCodec = layout.codec()

  /** The rows of the group open (in state format 1, of any group). */
  def rows: GroupRows

  /** When each group must be visited again. */
  def timers: VisitTimers

  /** Starts the work on a group: every call until [[close]] is about this group. */
  def open(group: UnsafeRow): Unit

  /** Ends the work on the group [[open]]ed: what changed is stored. */
  def close(): Unit

  /**
   * Whether the group open now is small enough that a visit sweeps all its Partial rows again in
   * memory, rather than resuming the queue kept in its state (state format 2: its record holds
   * them, at most [[RecordLimits.resweepRows]] of them). Such a group keeps no queue.
   */
  def resweepable: Boolean

  /**
   * Whether a flip of a group's queue removes the Partial rows it moves into the queue's front,
   * whose Suffix rows then carry their times (state format 2: each time pushed is one row, a
   * partial in the back or a suffix in the front, a third fewer rows for a group with a queue).
   * Else they stay until they expire (state format 1: the right windows of the times pushed are
   * read from them).
   */
  def flipsRemovePartials: Boolean

  /**
   * Whether a group that receives rows may claim its visit at its ingestion
   * ([[VisitTimers.claimVisit]]), visited then in the same [[open]] (state format 2).
   */
  def claimsVisitsAtIngestion: Boolean

  /**
   * Commits the micro-batch's state, as [[OperatorState.commit]], and hands on what outlives the
   * micro-batch (state format 2's [[CommitRow]] and [[RecordCache]]).
   */
  override def commit(): Unit
}

object WindowState {
  /**
   * Whether the operator counts its state rows itself ([[StateMetrics.rowCount]]: state format 2
   * with a time index), so that its stores need not: Spark's RocksDB provider reads every key
   * before it writes or deletes it to count them (`trackTotalNumberOfRows`).
   */
  def countsOwnRows(layout: WindowStateLayout, arrangement: StateArrangement): Boolean =
    layout.hasGroupRecords && arrangement.timeIndex

  /**
   * The state of one micro-batch of one partition, of the format version of `layout`, arranged
   * as `arrangement`, whose eviction watermark is `watermark` (the visits due under it are made
   * by it). State format 2 arranges a group's rows by `limits`, and with a time index keeps their
   * records in memory between micro-batches, in up to `recordCacheBytes`
   * ([[RecordCache.maxBytes]]). With `verify` (the tests, [[OperatorState.verifyRowCountKey]]), each commit of
   * state format 2 checks what it counts.
   */
  def apply(store: StateStore, layout: WindowStateLayout, arrangement: StateArrangement,
      watermark: Option[Long], limits: RecordLimits, recordCacheBytes: Long,
      verify: Boolean = false): WindowState =
    layout.version match {
      case 1 => new WindowStateV1(store, layout, arrangement, watermark)
      case 2 => new WindowStateV2(store, layout, arrangement, watermark, limits, recordCacheBytes, verify)
    }
}
