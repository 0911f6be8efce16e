package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.internal.SQLConf

/**
 * What the state of every operator of this project shares, over one micro-batch of one
 * partition's store, as Spark's state managers share theirs: one ledger of the rows read,
 * written, created and removed, kept by every layer that touches a row ([[StateCounters]]), read
 * as one [[StateMetrics]] snapshot; and [[commit]], which stores what the state keeps beside its
 * rows, commits the store and checks what it counted. The exec's completion thus reads the same
 * for every operator: `val done = state.metrics; ...; commitTime += timeTakenMs { state.commit() }`.
 *
 * The windowed aggregation's state: [[sliding.WindowState]]; trailing windows':
 * [[trailing.TrailingState]]. Each chooses its format's class once, from the version the query's
 * checkpoint records.
 */
abstract class OperatorState(val store: StateStore) {
  private[state] val counters = new StateCounters

  /** What the micro-batch's state work did so far. */
  def metrics: StateMetrics

  /**
   * Commits the micro-batch's state: stores what the state keeps beside its rows, commits the
   * store, and (in the tests, [[OperatorState.verifyRowCountKey]]) checks the rows it counted
   * against the provider's count. Call once, when every output row is pulled.
   */
  def commit(): Unit
}

object OperatorState {
  /**
   * Internal, for tests: the provider counts the rows too, and every commit checks that the
   * operator's count ([[StateMetrics.rowCount]]) agrees with it (and, for sliding windows with a
   * time index, the count of the index's entries with the index).
   */
  val verifyRowCountKey = "spark.sql.slidingWindow.state.verifyRowCount"

  def verifyRowCount(conf: SQLConf): Boolean = conf.getConfString(verifyRowCountKey, "false").toBoolean

  /** Fails unless the provider's count of the store's keys is `expected`. */
  def checkRowCount(store: StateStore, expected: Long, counted: String): Unit = {
    val provider = store.metrics.numKeys
    if (provider != expected) {
      throw new IllegalStateException(s"state rows counted by the operator: $counted, by the provider: $provider")
    }
  }
}
