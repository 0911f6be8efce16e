package org.apache.spark.sql.slidingwindow.harness

import org.apache.spark.sql.slidingwindow.execution.TrailingDueSteps
import org.apache.spark.sql.slidingwindow.state.sliding.{RecordCache, RecordLimits}
import org.apache.spark.sql.slidingwindow.state.trailing.PendingLimits
import org.apache.spark.sql.slidingwindow.stored.StoredFrames

/**
 * The session settings of the operators that the harness's streams draw (a restart may change
 * them): small values, so that small streams cross every limit, and the defaults.
 */
object SettingChoices {
  /**
   * RocksDB's commits: the micro-batch's changes, or (now and then: a snapshot of RocksDB's files
   * per commit is slow) its files; a restart reads either.
   */
  val store: Map[String, Seq[String]] =
    Map("spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled" -> Seq("true", "true", "true", "false"))

  /** State format 2's record limits and cache (tests/test_batch_window_restarts.py's choices). */
  val windowRecords: Map[String, Seq[String]] = store ++ Map(
    RecordLimits.inlineRowsKey -> Seq("0", "1", "2", "512"),
    RecordLimits.resweepRowsKey -> Seq("0", "1", "16"),
    RecordLimits.chunkRowsKey -> Seq("1", "2", "16"),
    RecordLimits.hotRowsKey -> Seq("0", "1", "2"),
    RecordCache.maxBytesKey -> Seq("0", "1k", "64m"))

  /**
   * Trailing windows' Pending parts and due steps: one row or bucket each, a few, the defaults; a
   * scan of the whole store for a jump over more than two buckets, or over 4,096.
   */
  val trailingParts: Map[String, Seq[String]] = store ++ Map(
    PendingLimits.partBytesKey -> Seq("1", "300", (16L << 20).toString),
    PendingLimits.bucketScansKey -> Seq("2", PendingLimits.DefaultBucketScans.toString),
    TrailingDueSteps.stepBytesKey -> Seq("1", "1000", (16L << 20).toString))

  /** Trailing windows' chunks of stacks, for a stream's whole life. */
  val trailingChunks: Map[String, Seq[String]] = Map(StoredFrames.chunkElementsKey -> Seq("1", "2", "4", "32"))
}
