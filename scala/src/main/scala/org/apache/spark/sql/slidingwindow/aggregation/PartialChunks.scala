package org.apache.spark.sql.slidingwindow.aggregation

import java.nio.ByteBuffer

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.memory.SpillFile
import org.apache.spark.unsafe.Platform

/**
 * A FIFO of sealed chunks of timestamped partials, stored compactly: each chunk is one byte
 * array of (time, length, UnsafeRow bytes) records instead of an object per partial. Chunks stay
 * in memory while the chunks held in memory take at most `memoryBytes`; beyond that they are
 * written to a [[SpillFile]] and read back when their turn comes, so a window of any size needs
 * bounded memory.
 *
 * Partials must be [[UnsafeRow]]s of `numFields` fields (frozen partials).
 */
final class PartialChunks(numFields: Int, memoryBytes: Long) {

  private final class Chunk(
      val firstTime: Long,
      val lastTime: Long,
      val count: Int,
      var bytes: Array[Byte], // in memory, or null when in the file
      val offset: Long,
      val length: Int)

  private val chunks = new mutable.Queue[Chunk]
  private var bytesInMemory = 0L
  private val file = new SpillFile

  def isEmpty: Boolean = chunks.isEmpty
  def nonEmpty: Boolean = chunks.nonEmpty
  def oldestFirstTime: Long = chunks.head.firstTime
  def oldestLastTime: Long = chunks.head.lastTime
  def oldestCount: Int = chunks.head.count
  /** Bytes in the spill file now (0 when nothing is spilled). */
  def spilledBytes: Long = file.size

  /** Seals `count` partials with ascending times as the newest chunk. */
  def add(times: Array[Long], partials: Array[InternalRow], count: Int): Unit = {
    var length = 0
    var i = 0
    while (i < count) { length += 12 + partials(i).asInstanceOf[UnsafeRow].getSizeInBytes; i += 1 }
    val bytes = new Array[Byte](length)
    val out = ByteBuffer.wrap(bytes)
    i = 0
    while (i < count) {
      val row = partials(i).asInstanceOf[UnsafeRow]
      out.putLong(times(i)).putInt(row.getSizeInBytes)
      row.writeToMemory(bytes, Platform.BYTE_ARRAY_OFFSET + out.position())
      out.position(out.position() + row.getSizeInBytes)
      i += 1
    }
    if (bytesInMemory + length <= memoryBytes) {
      bytesInMemory += length
      chunks.enqueue(new Chunk(times(0), times(count - 1), count, bytes, -1, length))
    } else {
      val offset = file.write(bytes)
      chunks.enqueue(new Chunk(times(0), times(count - 1), count, null, offset, length))
    }
  }

  /** Removes the oldest chunk, giving each of its partials to `f` in time order. */
  def removeOldest(f: (Long, UnsafeRow) => Unit): Unit = {
    val chunk = chunks.dequeue()
    val bytes =
      if (chunk.bytes != null) {
        bytesInMemory -= chunk.length
        chunk.bytes
      } else {
        file.read(chunk.offset, chunk.length)
      }
    val in = ByteBuffer.wrap(bytes)
    var i = 0
    while (i < chunk.count) {
      val time = in.getLong()
      val size = in.getInt()
      val row = new UnsafeRow(numFields)
      row.pointTo(bytes, Platform.BYTE_ARRAY_OFFSET + in.position(), size)
      in.position(in.position() + size)
      f(time, row)
      i += 1
    }
  }

  /** Removes the oldest chunk without reading it. */
  def dropOldest(): Unit = {
    val chunk = chunks.dequeue()
    if (chunk.bytes != null) bytesInMemory -= chunk.length else file.release()
  }

  def clear(): Unit = {
    chunks.clear()
    bytesInMemory = 0
    file.reset()
  }

  /** Deletes the spill file. */
  def close(): Unit = {
    clear()
    file.close()
  }
}
