package org.apache.spark.sql.slidingwindow.stored

import org.apache.spark.sql.slidingwindow.state.CompactWriter
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.aggregation.PartialStack
import org.apache.spark.unsafe.Platform

/**
 * One stack of a group's frames in the state of streaming trailing windows
 * ([[StoredFrames]]): its newest elements, at most `capacity` of them (the tail), live in
 * the group's Frames row, and the older ones in Chunk rows of exactly `capacity` elements, each
 * written once when the tail fills and read (and removed) once when the tail runs out. A push or
 * a pop therefore costs 1/`capacity` of a state read or write amortized, and the Frames row that
 * every visit reads and writes stays small.
 *
 * An element's bytes: its time (8 bytes), the length of its partial (4), the partial's UnsafeRow
 * bytes; the tail's bytes and a chunk's are elements one after the other, oldest first.
 *
 * @param latest where every time pushed is noted: the newest time of the group's frames
 */
private[slidingwindow] final class StoredStack(chunks: StoredStack.Chunks, numFields: Int, capacity: Int,
    latest: StoredStack.Latest) extends PartialStack {
  private var bytes = new Array[Byte](256)
  private var size = 0
  private var starts = new Array[Int](capacity)
  private var count = 0 // elements in the tail
  private var chunkCount = 0 // chunks below the tail, numbered 0 until chunkCount
  private var group: UnsafeRow = _
  private var id = 0
  private val row = new UnsafeRow(numFields)

  /** The stack `id` of `group`: `chunkCount` chunks, and a tail of `length` bytes at `offset` in `base`. */
  def open(group: UnsafeRow, id: Int, chunkCount: Int, base: AnyRef, offset: Long, length: Int): Unit = {
    this.group = group
    this.id = id
    this.chunkCount = chunkCount
    fill(base, offset, length)
  }

  private def fill(base: AnyRef, offset: Long, length: Int): Unit = {
    if (bytes.length < length) bytes = new Array[Byte](math.max(length, 2 * bytes.length))
    if (length > 0) Platform.copyMemory(base, offset, bytes, Platform.BYTE_ARRAY_OFFSET, length)
    size = length
    count = 0
    var at = 0
    while (at < length) {
      // A chunk or tail written with another chunk size (a restart that changed it) still reads.
      if (count == starts.length) starts = java.util.Arrays.copyOf(starts, 2 * count)
      starts(count) = at
      count += 1
      at += 12 + Platform.getInt(bytes, Platform.BYTE_ARRAY_OFFSET + at + 8)
    }
  }

  /** Writes the stack's place in the group's Frames row: its chunk count and its tail. */
  def write(out: CompactWriter): Unit = {
    out.varint(chunkCount)
    out.varint(size)
    out.copy(bytes, Platform.BYTE_ARRAY_OFFSET, size)
  }

  override def isEmpty: Boolean = count == 0 && chunkCount == 0

  override def push(time: Long, partial: InternalRow): Unit = {
    if (count >= capacity) {
      chunks.put(group, id, chunkCount, bytes, size)
      chunkCount += 1
      count = 0
      size = 0
    }
    val p = partial.asInstanceOf[UnsafeRow]
    val length = p.getSizeInBytes
    if (size + 12 + length > bytes.length) {
      bytes = java.util.Arrays.copyOf(bytes, math.max(2 * bytes.length, size + 12 + length))
    }
    val at = Platform.BYTE_ARRAY_OFFSET + size
    Platform.putLong(bytes, at, time)
    Platform.putInt(bytes, at + 8, length)
    p.writeToMemory(bytes, at + 12)
    starts(count) = size
    count += 1
    size += 12 + length
    if (time > latest.time) latest.time = time
  }

  // The tail ran out: the newest chunk becomes the tail.
  private def load(): Unit = if (count == 0 && chunkCount > 0) {
    chunkCount -= 1
    val chunk = chunks.take(group, id, chunkCount)
    fill(chunk, Platform.BYTE_ARRAY_OFFSET, chunk.length)
  }

  override def topTime: Long = {
    load()
    Platform.getLong(bytes, Platform.BYTE_ARRAY_OFFSET + starts(count - 1))
  }

  override def top: InternalRow = {
    load()
    val at = Platform.BYTE_ARRAY_OFFSET + starts(count - 1)
    row.pointTo(bytes, at + 12, Platform.getInt(bytes, at + 8))
    row
  }

  override def pop(): Unit = {
    load()
    count -= 1
    size = starts(count)
  }

  /** Forgets the stack (its chunks stay in the state, for the group's next [[open]]). */
  override def clear(): Unit = {
    count = 0
    size = 0
    chunkCount = 0
  }
}

private[slidingwindow] object StoredStack {
  /** Where a group's stacks keep their chunks. */
  trait Chunks {
    def put(group: UnsafeRow, stack: Int, chunk: Int, bytes: Array[Byte], length: Int): Unit
    /** Reads and removes a chunk. */
    def take(group: UnsafeRow, stack: Int, chunk: Int): Array[Byte]
  }

  /** The newest time pushed into a group's stacks. */
  final class Latest {
    var time: Long = Long.MinValue
  }
}
