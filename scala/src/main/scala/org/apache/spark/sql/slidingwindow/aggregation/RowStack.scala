package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.memory.SpillFile
import org.apache.spark.unsafe.Platform

/**
 * A [[PartialStack]] with no object per element and bounded memory.
 *
 * Elements are records `[row bytes][size: Int][time: Long]` appended to byte chunks, so the top
 * record is found from the end of the top chunk. Chunks grow from 1 KiB to `chunkBytes`. When the
 * chunks in memory take more than `memoryBytes`, the lowest one is written to a [[SpillFile]]:
 * the spilled chunks are always the bottom of the stack, so the file is used as a stack too, and
 * a chunk is read back when pops reach it.
 *
 * @param numFields fields of the rows (frozen partials are UnsafeRows of the buffer schema)
 */
final class RowStack(numFields: Int, chunkBytes: Int, memoryBytes: Long) extends PartialStack {
  import RowStack._

  private final class Chunk(val bytes: Array[Byte]) { var used = 0 }
  private final class Spilled(val offset: Long, val length: Int)

  private val chunks = new java.util.ArrayDeque[Chunk] // in memory, bottom first
  private var topChunk: Chunk = _ // chunks.peekLast(), the one pushes and pops touch
  private val spilled = new java.util.ArrayDeque[Spilled] // on disk, bottom first
  private var inMemory = 0L
  private var count = 0L
  private var spare: Array[Byte] = _ // the array of the last emptied chunk, reused
  private val file = new SpillFile
  private val view = new UnsafeRow(numFields)

  override def isEmpty: Boolean = count == 0
  def size: Long = count
  /** Bytes in the spill file now (0 unless the stack outgrew its memory). */
  def spilledBytes: Long = file.size

  override def push(time: Long, partial: InternalRow): Unit = {
    val row = partial.asInstanceOf[UnsafeRow]
    val size = row.getSizeInBytes
    val need = size + RecordOverhead
    var chunk = topChunk
    if (chunk == null || chunk.bytes.length - chunk.used < need) chunk = newChunk(need)
    val at = Platform.BYTE_ARRAY_OFFSET + chunk.used
    row.writeToMemory(chunk.bytes, at)
    Platform.putInt(chunk.bytes, at + size, size)
    Platform.putLong(chunk.bytes, at + size + 4, time)
    chunk.used += need
    count += 1
  }

  override def topTime: Long = {
    val chunk = topChunk
    Platform.getLong(chunk.bytes, Platform.BYTE_ARRAY_OFFSET + chunk.used - 8)
  }

  override def top: InternalRow = {
    val chunk = topChunk
    val size = Platform.getInt(chunk.bytes, Platform.BYTE_ARRAY_OFFSET + chunk.used - RecordOverhead)
    view.pointTo(chunk.bytes, Platform.BYTE_ARRAY_OFFSET + chunk.used - RecordOverhead - size, size)
    view
  }

  override def pop(): Unit = {
    val chunk = topChunk
    val size = Platform.getInt(chunk.bytes, Platform.BYTE_ARRAY_OFFSET + chunk.used - RecordOverhead)
    chunk.used -= size + RecordOverhead
    count -= 1
    if (chunk.used == 0) {
      chunks.pollLast()
      inMemory -= chunk.bytes.length
      if (spare == null || chunk.bytes.length > spare.length) spare = chunk.bytes
      if (chunks.isEmpty && !spilled.isEmpty) {
        val s = spilled.pollLast()
        val loaded = new Chunk(file.readLast(s.offset, s.length))
        loaded.used = s.length
        chunks.addLast(loaded)
        inMemory += s.length
      }
      topChunk = chunks.peekLast()
    }
  }

  override def clear(): Unit = {
    // The largest array is kept for the next pushes: a sweep clears its queue after each group.
    chunks.forEach(c => if (spare == null || c.bytes.length > spare.length) spare = c.bytes)
    chunks.clear()
    topChunk = null
    spilled.clear()
    inMemory = 0
    count = 0
    file.reset()
  }

  /** Deletes the spill file, if any. */
  def close(): Unit = {
    clear()
    file.close()
  }

  private def newChunk(need: Int): Chunk = {
    val previous = topChunk
    val wanted = if (previous == null) FirstChunkBytes else math.min(previous.bytes.length * 2, chunkBytes)
    val length = math.max(wanted, need)
    val bytes =
      if (spare != null && spare.length >= length) { val s = spare; spare = null; s }
      else new Array[Byte](length)
    val chunk = new Chunk(bytes)
    chunks.addLast(chunk)
    topChunk = chunk
    inMemory += bytes.length
    while (inMemory > memoryBytes && chunks.size > 1) {
      val bottom = chunks.pollFirst()
      inMemory -= bottom.bytes.length
      spilled.addLast(new Spilled(file.write(bottom.bytes, bottom.used), bottom.used))
    }
    chunk
  }
}

object RowStack {
  /** Bytes of a record besides the row: its size and its time. */
  private val RecordOverhead = 12
  private val FirstChunkBytes = 1024
}
