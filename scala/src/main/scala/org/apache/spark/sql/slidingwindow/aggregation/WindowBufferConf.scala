package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.network.util.JavaUtils
import org.apache.spark.sql.internal.SQLConf

/**
 * How a sliding window's partials are buffered (see [[TwoStacks]] over [[RowStack]]s): in byte
 * chunks of up to `chunkBytes`, with at most `memoryBytes` of chunks in memory per window queue
 * before the oldest spill to local disk.
 */
case class WindowBufferConf(chunkBytes: Int, memoryBytes: Long) {
  require(chunkBytes >= 64, s"chunk size must be at least 64 bytes, got $chunkBytes")

  /**
   * A stack of a window queue, whose `sharing` stacks share the memory: a queue's two stacks, or
   * four for a trailing frame with a lag (its queue and the FIFO of the partials waiting to enter).
   */
  def newStack(numFields: Int, sharing: Int = 2): RowStack =
    new RowStack(numFields, chunkBytes, memoryBytes / sharing)
}

object WindowBufferConf {
  val chunkBytesKey = "spark.sql.slidingWindow.buffer.chunkBytes"
  val memoryKey = "spark.sql.slidingWindow.buffer.memory"

  val default: WindowBufferConf = WindowBufferConf(256 << 10, 64L << 20)

  def apply(conf: SQLConf): WindowBufferConf = WindowBufferConf(
    JavaUtils.byteStringAsBytes(conf.getConfString(chunkBytesKey, s"${default.chunkBytes}b")).toInt,
    JavaUtils.byteStringAsBytes(conf.getConfString(memoryKey, s"${default.memoryBytes}b")))
}
