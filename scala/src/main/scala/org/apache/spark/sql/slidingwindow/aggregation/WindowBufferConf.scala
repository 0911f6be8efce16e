package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.network.util.JavaUtils
import org.apache.spark.sql.internal.SQLConf

/**
 * How a sliding window's partials are buffered (see [[ChunkedTwoStacks]]): in chunks of
 * `chunkSize` partials, with at most `memoryBytes` of sealed chunks in memory per task before
 * they spill to local disk.
 */
case class WindowBufferConf(chunkSize: Int, memoryBytes: Long) {
  require(chunkSize >= 2, s"chunk size must be at least 2, got $chunkSize")
}

object WindowBufferConf {
  val chunkSizeKey = "spark.sql.slidingWindow.buffer.chunkSize"
  val memoryKey = "spark.sql.slidingWindow.buffer.memory"

  val default: WindowBufferConf = WindowBufferConf(4096, 64L << 20)

  def apply(conf: SQLConf): WindowBufferConf = WindowBufferConf(
    conf.getConfString(chunkSizeKey, default.chunkSize.toString).toInt,
    JavaUtils.byteStringAsBytes(conf.getConfString(memoryKey, s"${default.memoryBytes}b")))
}
