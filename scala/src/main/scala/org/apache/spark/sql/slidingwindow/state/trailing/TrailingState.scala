package org.apache.spark.sql.slidingwindow.state
package trailing

import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * The state of one micro-batch of one partition of streaming trailing windows, over its store
 * ([[TrailingStateLayout]]), as [[sliding.WindowState]] is the windowed aggregation's: one class
 * per state format version ([[TrailingStateV1]]), chosen once from the version the query's
 * checkpoint records. A micro-batch works on it through two views: the rows waiting for the
 * watermark ([[pending]]) and the rows of the groups' frames ([[frames]]); every row either
 * touches is counted in the state's one ledger, and [[commit]] writes the Summary row (the
 * store's row count, the next sweep) before it commits the store.
 *
 * What each version holds, and its invariants: docs/state-format.md, section "Trailing windows".
 */
abstract class TrailingState private[trailing] (store: StateStore, val layout: TrailingStateLayout)
  extends OperatorState(store) {

  /** The input rows waiting for the watermark. */
  def pending: PendingParts

  /** The rows of the groups' frames. */
  def frames: FramesRows

  /**
   * Once the micro-batch kept its rows and emitted those due: the earliest time a row waits for,
   * or earlier (Long.MaxValue: none waits), which the idle clock runs a micro-batch for.
   */
  def nextDue: Long
}

object TrailingState {
  /**
   * The state of one micro-batch of one partition in format `version` (one of
   * [[TrailingStateLayout.supported]]), arranged as `arrangement` (a time index or a scan of the
   * groups for their expiry; never ordered rows), whose watermarks are `lateMicros` (rows at or before it
   * are late) and `evictionMicros` (rows at or before it are due); the input is kept in parts within
   * `limits`. With `verify` (the tests, [[OperatorState.verifyRowCountKey]]),
   * each commit checks the state's row count against the provider's.
   */
  def apply(version: Int, store: StateStore, layout: TrailingStateLayout, arrangement: StateArrangement,
      lateMicros: Long, evictionMicros: Long, limits: PendingLimits, verify: Boolean): TrailingState = version match {
    case 1 => new TrailingStateV1(store, layout, arrangement, lateMicros, evictionMicros, limits, verify)
  }

  /** The arrangement of a new query's state: a time index where this Spark and store have one. */
  def arrangementForNewQuery(conf: org.apache.spark.sql.internal.SQLConf): StateArrangement =
    StateArrangement.forNewQuery(conf).copy(orderedRows = false)
}
