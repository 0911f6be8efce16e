package org.apache.spark.sql.slidingwindow.state

import java.util.{HashMap => JHashMap}

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.codegen.ProjectionPool
import org.apache.spark.unsafe.Platform

/**
 * The Pending rows of state format 3, in parts: a part holds the rows of one group and bucket that
 * one micro-batch kept, at (0, seq) with `__seq` the micro-batch id in the high 32 bits and the
 * part's number in the task in the low ones (so that a micro-batch run again writes the same
 * keys); its `__bytes` are its rows one after the other, each as its time (8 bytes), its `__seq`
 * (8, as in format 2), its length (4) and its UnsafeRow bytes. A micro-batch thus writes a state
 * row per group and bucket it has rows for, where format 2 writes one per row and removes it
 * again: with a thousand rows a group and second, a thousandth of the writes.
 *
 * A task holds a micro-batch's parts in memory until its input ends, or until they take
 * `partBytes`: then it writes them, and goes on with new parts. A part read when its bucket holds
 * rows due is removed once they are emitted, or written again with its rows that are not due yet.
 */
private[slidingwindow] final class PendingParts(store: StateStore, layout: TrailingFramesLayout,
    lateMicros: Long, evictionMicros: Long, partBytes: Long)
  extends PendingRows(store, layout, lateMicros, evictionMicros) {
  import PendingParts._

  private val emptied = mutable.ArrayBuffer.empty[UnsafeRow]
  private val rest = mutable.ArrayBuffer.empty[(UnsafeRow, Array[Byte])]

  override def keep(input: Iterator[InternalRow], time: Expression, batchId: Long): Unit = {
    val keyOf = layout.keyOfInput(time)
    val toUnsafe = ProjectionPool.unsafe(layout.input.zipWithIndex.map { case (a, i) =>
      BoundReference(i, a.dataType, a.nullable) })
    // The parts open, by their group and bucket (a key with __time and __seq 0).
    val parts = new JHashMap[UnsafeRow, Part]
    var buffered = 0L
    var partNumber = 0L
    def write(): Unit = {
      parts.forEach { (_, part) =>
        StateStoreApi.put(store, part.key, rows.bytesValue(part.bytes()), family)
        rowsWritten += 1
        rowsCreated += 1
      }
      parts.clear()
      buffered = 0L
    }
    droppedLateRows += PendingRows.eachKept(input, keyOf, layout.timeOrdinal, batchId, lateMicros) { (row, key) =>
      val t = key.getLong(layout.timeOrdinal)
      val rowSeq = key.getLong(layout.seqOrdinal)
      key.setLong(layout.timeOrdinal, 0L)
      key.setLong(layout.seqOrdinal, 0L)
      var part = parts.get(key)
      if (part == null) {
        val partKey = key.copy()
        partKey.setLong(layout.seqOrdinal, PendingRows.seq(batchId, partNumber))
        partNumber += 1
        part = new Part(partKey)
        parts.put(key.copy(), part)
      }
      val u = row match {
        case u: UnsafeRow => u
        case other => toUnsafe(other)
      }
      part.add(t, rowSeq, u)
      buffered += Header + u.getSizeInBytes
      if (buffered >= partBytes) write()
    }
    write()
  }

  override def readDue(due: PendingRows.Due): Unit = scanDue { (key, value) =>
    rowsRead += 1
    val bytes = value.getBinary(1)
    var notDue: Part = null
    var at = 0
    while (at < bytes.length) {
      val offset = Platform.BYTE_ARRAY_OFFSET + at
      val t = Platform.getLong(bytes, offset)
      val length = Platform.getInt(bytes, offset + 16)
      if (t <= evictionMicros) {
        val row = new UnsafeRow(layout.numInputFields)
        row.pointTo(bytes, offset + Header, length)
        due(key, t, Platform.getLong(bytes, offset + 8), row)
      } else {
        if (notDue == null) notDue = new Part(null)
        notDue.copy(bytes, offset, Header + length)
      }
      at += Header + length
    }
    if (notDue == null) emptied += key.copy()
    else rest += ((key.copy(), notDue.bytes()))
  }

  override def finish(): Unit = {
    emptied.foreach(key => StateStoreApi.remove(store, key, family))
    rowsRemoved += emptied.length
    emptied.clear()
    rest.foreach { case (key, bytes) => StateStoreApi.put(store, key, rows.bytesValue(bytes), family) }
    rowsWritten += rest.length
    rest.clear()
  }
}

private[slidingwindow] object PendingParts {
  /** A row's bytes in a part before its UnsafeRow's: time, seq, length. */
  val Header = 20

  /** The rows of a part, as its `__bytes` hold them. */
  private final class Part(val key: UnsafeRow) {
    private var buffer = new Array[Byte](64)
    private var size = 0

    private def ensure(more: Int): Unit = if (size + more > buffer.length) {
      buffer = java.util.Arrays.copyOf(buffer, math.max(2 * buffer.length, size + more))
    }

    def add(time: Long, seq: Long, row: UnsafeRow): Unit = {
      val length = row.getSizeInBytes
      ensure(Header + length)
      val at = Platform.BYTE_ARRAY_OFFSET + size
      Platform.putLong(buffer, at, time)
      Platform.putLong(buffer, at + 8, seq)
      Platform.putInt(buffer, at + 16, length)
      row.writeToMemory(buffer, at + Header)
      size += Header + length
    }

    /** `length` bytes of a part's rows, from `offset` in `base`. */
    def copy(base: AnyRef, offset: Long, length: Int): Unit = {
      ensure(length)
      Platform.copyMemory(base, offset, buffer, Platform.BYTE_ARRAY_OFFSET + size, length)
      size += length
    }

    def bytes(): Array[Byte] = java.util.Arrays.copyOf(buffer, size)
  }

  /**
   * Internal, for tests: the bytes of rows a task holds in parts before it writes them (by default
   * [[DefaultPartBytes]]), so that small streams write a group's rows of one bucket in several parts.
   */
  val partBytesKey = "spark.sql.slidingWindow.trailingWindows.state.partBytes"
  val DefaultPartBytes: Long = 16L << 20

  def partBytes(conf: SQLConf): Long = conf.getConfString(partBytesKey, DefaultPartBytes.toString).toLong
}
