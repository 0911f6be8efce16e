package org.apache.spark.sql.slidingwindow.windows

import java.nio.ByteBuffer

import org.apache.spark.sql.slidingwindow.memory.SpillFile

/**
 * A FIFO of primitive longs, for pending window starts: blocks of `blockSize` values, at most
 * `blocksInMemory` of them on the heap; the other blocks (never the first or the last) wait in a
 * [[SpillFile]], so a window whose starts number in the millions needs bounded memory.
 */
final class LongQueue(blockSize: Int = 8192, blocksInMemory: Int = 32) extends Starts {
  require(blockSize > 0 && blocksInMemory >= 2)

  private final class Block(var values: Array[Long]) {
    var start = 0
    var end = 0
    var offset = -1L
  }

  private val blocks = new java.util.ArrayDeque[Block]
  private var inMemory = 0
  private val file = new SpillFile
  // The first block, its values and where its head is: the fast path of head and removeHead.
  private var first: Block = _
  private var count = 0

  override def isEmpty: Boolean = count == 0
  def nonEmpty: Boolean = count > 0
  def size: Long = count

  override def head: Long = first.values(first.start)

  def add(value: Long): Unit = {
    var last = blocks.peekLast()
    if (last == null || last.end == blockSize) {
      if (last != null && last != first && inMemory >= blocksInMemory) spill(last)
      last = new Block(new Array[Long](blockSize))
      inMemory += 1
      blocks.addLast(last)
      if (first == null) first = last
    }
    last.values(last.end) = value
    last.end += 1
    count += 1
  }

  override def removeHead(): Long = {
    val v = first.values(first.start)
    first.start += 1
    count -= 1
    if (first.start == first.end) {
      if (blocks.size == 1) {
        first.start = 0
        first.end = 0
      } else {
        blocks.removeFirst()
        inMemory -= 1
        first = blocks.peekFirst()
        if (first.values == null) load(first)
      }
    }
    v
  }

  /** Empties the queue; its first block, if in memory, is kept for the next values. */
  def clear(): Unit = {
    val keep = if (first != null && first.values != null) first else null
    blocks.clear()
    inMemory = 0
    count = 0
    file.reset()
    first = keep
    if (keep != null) {
      keep.start = 0
      keep.end = 0
      blocks.addLast(keep)
      inMemory = 1
    }
  }

  private def spill(block: Block): Unit = {
    val bytes = ByteBuffer.allocate(block.end * 8)
    bytes.asLongBuffer().put(block.values, 0, block.end)
    block.offset = file.write(bytes.array())
    block.values = null
    inMemory -= 1
  }

  private def load(block: Block): Unit = {
    block.values = new Array[Long](blockSize)
    ByteBuffer.wrap(file.read(block.offset, block.end * 8)).asLongBuffer().get(block.values, 0, block.end)
    inMemory += 1
  }
}
