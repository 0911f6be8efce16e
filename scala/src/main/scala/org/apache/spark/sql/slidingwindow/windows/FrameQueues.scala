package org.apache.spark.sql.slidingwindow.windows

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, PartialFifo, TwoStacks, WindowBufferConf}

/**
 * Where the frames of [[TrailingWindows]] keep their queues: per frame, the Two-Stacks queue of
 * the partials in its window and, for a frame that ends `lag` before its rows, the FIFO of the
 * partials waiting to enter it (null without a lag). [[open]] moves them to a group: in memory
 * ([[FrameQueues.inMemory]]) a group starts empty; a stream's state (that of streaming trailing
 * windows) resumes the queues the group's last micro-batch left, and stores what changed.
 */
trait FrameQueues {
  def queue(frame: Int): TwoStacks
  def waiting(frame: Int): PartialFifo

  /** The queues of `group` (the partition keys of its rows), from now on. */
  def open(group: UnsafeRow): Unit
}

object FrameQueues {
  /**
   * Queues in memory (spilling to disk beyond the memory of `conf` per frame, which a frame with a
   * lag shares with its FIFO): a group starts empty.
   */
  def inMemory(buffers: Array[AggregateBuffers], lags: Array[Long], conf: WindowBufferConf): FrameQueues =
    new FrameQueues {
      private def sharing(i: Int) = if (lags(i) == 0) 2 else 4
      private val queues = buffers.indices.map(i => TwoStacks.inMemory(buffers(i), conf, sharing(i))).toArray
      private val fifos = buffers.indices.map { i =>
        if (lags(i) == 0) null
        else new PartialFifo(conf.newStack(buffers(i).numBufferFields, 4), conf.newStack(buffers(i).numBufferFields, 4))
      }.toArray

      override def queue(frame: Int): TwoStacks = queues(frame)
      override def waiting(frame: Int): PartialFifo = fifos(frame)
      override def open(group: UnsafeRow): Unit = {
        queues.foreach(_.clear())
        fifos.foreach(f => if (f != null) f.clear())
      }
    }
}
