package org.apache.spark.sql.slidingwindow.state
package trailing

import org.apache.spark.sql.internal.SQLConf

/**
 * How much of the rows waiting for the watermark ([[PendingParts]]) a task holds and scans:
 *
 * @param partBytes   the bytes of rows a task holds in parts before it writes them
 * @param bucketScans the most buckets a micro-batch reads by a prefix scan each; past them, one
 *                    scan of the whole store finds the buckets that hold parts
 */
private[slidingwindow] final case class PendingLimits(partBytes: Long, bucketScans: Long)

private[slidingwindow] object PendingLimits {
  /**
   * Internal, for tests: the bytes of rows a task holds in parts before it writes them, so that
   * small streams write a group's rows of one span in several parts.
   */
  val partBytesKey = "spark.sql.slidingWindow.trailingWindows.state.partBytes"
  val DefaultPartBytes: Long = 16L << 20

  /** Internal, for tests: the most buckets read one by one, so that small jumps scan the store. */
  val bucketScansKey = "spark.sql.slidingWindow.trailingWindows.state.bucketScans"
  val DefaultBucketScans: Long = 4096L

  def apply(conf: SQLConf): PendingLimits = PendingLimits(
    conf.getConfString(partBytesKey, DefaultPartBytes.toString).toLong,
    conf.getConfString(bucketScansKey, DefaultBucketScans.toString).toLong)
}
