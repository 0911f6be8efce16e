package org.apache.spark.sql.slidingwindow.stored

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, PartialFifo, TwoStacks}
import org.apache.spark.sql.slidingwindow.state.{CompactReader, CompactWriter}
import org.apache.spark.sql.slidingwindow.state.trailing.FramesRows
import org.apache.spark.sql.slidingwindow.windows.{FrameQueues, SaturatingTime}
import org.apache.spark.unsafe.Platform

/**
 * The frames of streaming trailing windows kept in the state between micro-batches
 * ([[FramesRows]]): each group's Frames row holds, per frame, its Two-Stacks queue
 * (the back's aggregate and oldest time, the front's and the back's [[StoredStack]]s) and, for a
 * frame that ends `lag` before its rows, the two stacks of its FIFO of waiting partials
 * ([[PartialFifo]]); older elements of a stack are in its Chunk rows. [[open]] resumes a group's
 * frames where its last micro-batch left them, and stores the previous group's; [[close]] stores
 * the last. A micro-batch thus reads and writes a few rows per group it emits rows of, however
 * many rows its frames hold.
 *
 * A group's Frames row also holds the newest time in its frames: once the watermark is at or
 * past that time plus the largest size, no later row's frames reach any of it, and [[sweep]]
 * removes the group's rows, scanning the Frames rows at most once per half the largest size of
 * event time: a group no row comes to any more is removed within half the largest size after
 * that. The state's Summary row says when that may first be true of some group, so that the
 * Frames rows are only scanned then, or with a time index, only the groups due are read
 * ([[FramesRows.expire]]). The bytes of a Frames row: docs/state-format.md, section "Trailing windows".
 *
 * @param rows    the groups' Frames and Chunk rows in the state
 * @param buffers each frame's aggregates, frames in the operator's order (largest first)
 * @param lags    how far back each frame ends
 * @param chunkElements the elements of a stack's chunk, and at most of its tail in the Frames row
 */
private[slidingwindow] final class StoredFrames(rows: FramesRows, buffers: Array[AggregateBuffers],
    lags: Array[Long], largestSize: Long, chunkElements: Int) extends FrameQueues {

  private val chunks = new StoredStack.Chunks {
    override def put(group: UnsafeRow, stack: Int, chunk: Int, bytes: Array[Byte], length: Int): Unit =
      rows.putChunk(group, stack, chunk, bytes, length)
    override def take(group: UnsafeRow, stack: Int, chunk: Int): Array[Byte] = rows.takeChunk(group, stack, chunk)
  }

  private val latest = new StoredStack.Latest
  private def stack(i: Int) = new StoredStack(chunks, buffers(i).numBufferFields, chunkElements, latest)
  /** Frame i's stacks, by id: its front (4i), its back (4i + 1), and its FIFO's (4i + 2, 4i + 3). */
  private val stacks: Array[StoredStack] = buffers.indices.flatMap { i =>
    Seq(stack(i), stack(i)) ++ (if (lags(i) == 0) Seq(null, null) else Seq(stack(i), stack(i)))
  }.toArray
  private def stacksOf(frame: Int) = if (lags(frame) == 0) 2 else 4
  private val queues = buffers.indices.map(i => new TwoStacks(buffers(i), stacks(4 * i), stacks(4 * i + 1))).toArray
  private val fifos = buffers.indices.map { i =>
    if (lags(i) == 0) null else new PartialFifo(stacks(4 * i + 2), stacks(4 * i + 3))
  }.toArray
  private val aggregate = buffers.map(b => new UnsafeRow(b.numBufferFields))
  private val out = new CompactWriter

  private var group: UnsafeRow = _
  private var stored = false // the group has a Frames row

  override def queue(frame: Int): TwoStacks = queues(frame)
  override def waiting(frame: Int): PartialFifo = fifos(frame)

  override def open(partitionKeys: UnsafeRow): Unit = {
    persist()
    group = rows.group(partitionKeys).copy()
    var i = 0
    while (i < queues.length) {
      queues(i).clear()
      if (fifos(i) != null) fifos(i).clear()
      i += 1
    }
    latest.time = Long.MinValue
    val bytes = rows.get(group)
    stored = bytes != null
    val in = if (stored) new CompactReader(bytes, Platform.BYTE_ARRAY_OFFSET) else null
    if (stored) latest.time = in.signed()
    walk(in, opening)
  }

  /** What a Frames row holds, frame by frame, as [[walk]] reads it. */
  private trait FramesVisitor {
    /** Frame `frame`'s back: its oldest time and the aggregate at `at` in `base`, of `length` bytes. */
    def back(frame: Int, oldest: Long, base: AnyRef, at: Long, length: Int): Unit
    /** Stack `id`: its `chunkCount` Chunk rows and its tail at `at` in `base`, of `length` bytes. */
    def stack(id: Int, chunkCount: Int, base: AnyRef, at: Long, length: Int): Unit
  }

  /**
   * Reads a Frames row's frames from `in` (after the row's latest time), or, with `in` null, the
   * frames of a group without a row: no back aggregate, empty stacks. The one reader of the layout
   * [[persist]] writes.
   */
  private def walk(in: CompactReader, visitor: FramesVisitor): Unit = {
    var i = 0
    while (i < queues.length) {
      if (in != null && in.byte() == 1) {
        val oldest = in.signed()
        val length = in.varint().toInt
        visitor.back(i, oldest, in.base, in.at, length)
        in.skip(length)
      }
      var s = 0
      while (s < stacksOf(i)) {
        if (in == null) visitor.stack(4 * i + s, 0, null, 0L, 0)
        else {
          val chunkCount = in.varint().toInt
          val length = in.varint().toInt
          visitor.stack(4 * i + s, chunkCount, in.base, in.at, length)
          in.skip(length)
        }
        s += 1
      }
      i += 1
    }
  }

  /** Resumes the open group's queues. */
  private val opening = new FramesVisitor {
    override def back(frame: Int, oldest: Long, base: AnyRef, at: Long, length: Int): Unit = {
      aggregate(frame).pointTo(base, at, length)
      queues(frame).restoreBack(aggregate(frame), oldest)
    }
    override def stack(id: Int, chunkCount: Int, base: AnyRef, at: Long, length: Int): Unit =
      stacks(id).open(group, id, chunkCount, base, at, length)
  }

  /** Stores the frames of the group open, and closes it. */
  def close(): Unit = persist()

  private def persist(): Unit = if (group != null) {
    var empty = true
    var i = 0
    while (i < queues.length) {
      if (!queues(i).isEmpty || (fifos(i) != null && !fifos(i).isEmpty)) empty = false
      i += 1
    }
    if (empty) {
      if (stored) rows.remove(group)
    } else {
      out.clear()
      out.signed(latest.time)
      i = 0
      while (i < queues.length) {
        val q = queues(i)
        q.backOldestTime match {
          case Some(oldest) =>
            out.byte(1)
            out.signed(oldest)
            val agg = buffers(i).freeze(q.backAggregateBuffer)
            out.varint(agg.getSizeInBytes)
            out.copy(agg.getBaseObject, agg.getBaseOffset, agg.getSizeInBytes)
          case None =>
            out.byte(0)
        }
        var id = 4 * i
        while (id < 4 * i + stacksOf(i)) {
          stacks(id).write(out)
          id += 1
        }
        i += 1
      }
      rows.put(group, out.result(0), existed = stored, expiry = SaturatingTime.add(latest.time, largestSize))
    }
    group = null
  }

  /**
   * Removes the groups whose frames no row after `eviction` (the watermark for late rows of the
   * next micro-batch) reaches, if the state may hold one ([[FramesRows.nextExpiry]]); after
   * [[close]].
   */
  def sweep(eviction: Long): Unit = if (eviction != Long.MinValue && eviction >= rows.nextExpiry) {
    rows.expire(eviction, largestSize / 2) { bytes =>
      SaturatingTime.add(new CompactReader(bytes, Platform.BYTE_ARRAY_OFFSET).signed(), largestSize)
    }(remove)
  }

  /** Removes a group's Frames row (its bytes `bytes`) and the chunks of its stacks. */
  private def remove(g: UnsafeRow, bytes: Array[Byte]): Unit = {
    val in = new CompactReader(bytes, Platform.BYTE_ARRAY_OFFSET)
    in.signed()
    walk(in, new FramesVisitor {
      override def back(frame: Int, oldest: Long, base: AnyRef, at: Long, length: Int): Unit = ()
      override def stack(id: Int, chunkCount: Int, base: AnyRef, at: Long, length: Int): Unit = {
        var c = 0
        while (c < chunkCount) {
          rows.removeChunk(g, id, c)
          c += 1
        }
      }
    })
    rows.remove(g)
  }
}

private[slidingwindow] object StoredFrames {
  /**
   * Internal, for tests: the elements of a stack's chunk (by default [[DefaultChunkElements]]), so
   * that small streams fill and read chunks.
   */
  val chunkElementsKey = "spark.sql.slidingWindow.trailingWindows.state.chunkElements"
  val DefaultChunkElements = 32

  def chunkElements(conf: SQLConf): Int = conf.getConfString(chunkElementsKey, DefaultChunkElements.toString).toInt
}
