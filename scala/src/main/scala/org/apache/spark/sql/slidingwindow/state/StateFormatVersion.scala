package org.apache.spark.sql.slidingwindow.state

/**
 * The versions of the streaming state layout ([[WindowStateLayout]]). A query keeps the layout it
 * started with for its whole life: the version is recorded in its checkpoint when it first starts
 * ([[WindowOperatorRecord]]) and read back on every restart, as Spark records
 * `stateFormatVersion` for its own aggregations. A change to what the state holds or how it is
 * keyed is a new version; every earlier version stays readable, and its checkpoint fixtures
 * (tests/fixtures/checkpoints/) stay in the tests. docs/architecture.md lists the versions.
 *
 *  - 1 (release 0.1.0): one key space of (group, kind, time) rows: Partial, Suffix and Meta
 *    rows; with RocksDB, the `time_index` column family. Checkpoints of 0.1.0 carry no record:
 *    they are version 1.
 */
object StateFormatVersion {
  /** The versions this release reads and writes. */
  val supported: Seq[Int] = Seq(1)

  /** The version of new queries. */
  val current: Int = 1

  /** The version of a checkpoint that holds state but no record (written by 0.1.0). */
  val unrecorded: Int = 1
}
