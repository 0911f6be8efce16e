package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.internal.SQLConf

/**
 * The versions of the streaming state layout ([[WindowStateLayout]]). A query keeps the layout it
 * started with for its whole life: the version is recorded in its checkpoint when it first starts
 * ([[WindowOperatorRecord]]) and read back on every restart, as Spark records
 * `stateFormatVersion` for its own aggregations. A change to what the state holds or how it is
 * keyed is a new version; every earlier version stays readable, and its checkpoint fixtures
 * (tests/fixtures/checkpoints/) stay in the tests.
 *
 *  - 1 (release 0.1.0): (group, kind, time) rows. Checkpoints of 0.1.0 carry no record: they are
 *    version 1.
 *  - 2 (release 0.2.0): one record per group ([[StateRowKind.Record]], [[GroupRecord]]).
 *
 * What each version holds: docs/state-format.md, sections "Versions and arrangements" and
 * "Rows by format"; what makes a new version: section "Changing the state".
 */
object StateFormatVersion {
  /**
   * The state format of new queries, as Spark's `spark.sql.streaming.aggregation.stateFormatVersion`:
   * for tests and for a cluster that must keep writing a format an older release reads.
   */
  val newQueriesKey = "spark.sql.slidingWindow.state.formatVersion"

  /** The versions this release reads and writes. */
  val supported: Seq[Int] = Seq(1, 2)

  /** The version of new queries. */
  val current: Int = 2

  /** The version a query started now gets: [[current]], unless [[newQueriesKey]] says another. */
  def forNewQuery(conf: SQLConf): Int = {
    val version = conf.getConfString(newQueriesKey, current.toString).toInt
    require(supported.contains(version),
      s"$newQueriesKey must be one of ${supported.mkString(", ")}, got $version")
    version
  }

  /** The version of a checkpoint that holds state but no record (written by 0.1.0). */
  val unrecorded: Int = 1
}
