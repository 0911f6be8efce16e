package org.apache.spark.sql.slidingwindow.windows

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, PartialFifo, TwoStacks, WindowBufferConf}

/**
 * Where the frames of [[TrailingWindows]] keep their queues: per frame, the Two-Stacks queue of
 * the partials in its window and, for a frame that ends `lag` before its rows, the FIFO of the
 * partials waiting to enter it (null without a lag). [[open]] moves them to a group: in memory
 * ([[FrameQueues.inMemory]]) a group starts empty; a stream's state (state format 2 of trailing
 * windows) resumes the queues the group's last micro-batch left, and stores what changed.
 */
trait FrameQueues {
  def queue(frame: Int): TwoStacks
  def waiting(frame: Int): PartialFifo

  /** The queues of `group` (the partition keys of its rows), from now on. */
  def open(group: UnsafeRow): Unit
}

object FrameQueues {
  /** Queues in memory (spilling to disk beyond the memory of `conf`): a group starts empty. */
  def inMemory(buffers: Array[AggregateBuffers], lags: Array[Long], conf: WindowBufferConf): FrameQueues =
    new FrameQueues {
      private val queues = buffers.map(TwoStacks.inMemory(_, conf))
      private val fifos = buffers.indices.map { i =>
        if (lags(i) == 0) null
        else new PartialFifo(conf.newStack(buffers(i).numBufferFields), conf.newStack(buffers(i).numBufferFields))
      }.toArray

      override def queue(frame: Int): TwoStacks = queues(frame)
      override def waiting(frame: Int): PartialFifo = fifos(frame)
      override def open(group: UnsafeRow): Unit = {
        queues.foreach(_.clear())
        fifos.foreach(f => if (f != null) f.clear())
      }
    }
}
