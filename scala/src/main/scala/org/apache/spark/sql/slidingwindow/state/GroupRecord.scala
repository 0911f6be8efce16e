package org.apache.spark.sql.slidingwindow.state

import java.util.{Map => JMap, TreeMap => JTreeMap}

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

/**
 * State format 2: one group's record, the value of its [[StateRowKind.Record]] row, as a visit
 * works on it in memory ([[GroupRecordStore]]):
 *  - `meta`: the group's Meta value (the aggregate of the back of its queue, the last time pushed,
 *    the back's oldest time), kept in the record value's own `__buffer`, `__t1` and `__t2`;
 *  - `nextVisit`: when the group must be visited next (none: [[GroupRecord.NoVisit]]);
 *  - `indexed`: the time of the group's entry in the time index (none: [[GroupRecord.NoVisit]]),
 *    at or before `nextVisit`: an entry is a lower bound, which a group that receives rows in
 *    every micro-batch keeps instead of moving it at each visit ([[GroupRecordStore]]);
 *  - the group's Partial and Suffix rows, in the record while there are at most the inline limit
 *    of them (`inline`); a larger group keeps them as rows of their own, as in state format 1,
 *    and the record counts them (`storedRows`);
 *  - the list of its [[chunks]]: runs of its rows kept out of the record, each in a row of its
 *    own whose value's `__record` holds `count: long`, then the rows as entries below.
 *
 * The record's `__record` field holds, in Spark's byte order (little-endian here):
 * {{{
 *   nextVisit: long | indexed: long (Long.MinValue: none) | storedRows: int (-1: inline) | count: int
 *   count times: time: long | kind id (+ BufferOnly): int | size: int | size bytes, 8-aligned:
 *     the row's value, or with BufferOnly, the buffer of a value that holds nothing else
 *   chunks: long | chunks times: kind id: int | count: int | first time: long | last time: long
 * }}}
 * A value that holds a buffer and nothing else (no times: every Partial and Suffix row of sliding
 * windows) is kept as its buffer alone, 48 bytes an entry instead of 88 for three aggregates: the
 * record is read and written whole at each visit, and RocksDB's work follows its bytes.
 * Values read from a record point into it (or, for buffers alone, into values rebuilt as it is
 * read): they stay valid while the group is open.
 *
 * @param numValueFields the fields of the layout's values (the buffer first)
 */
private[state] final class GroupRecord(numValueFields: Int) {
  import GroupRecord._

  var meta: UnsafeRow = _
  var nextVisit: Long = NoVisit
  var indexed: Long = NoVisit
  var storedRows: Int = Inline
  private val partials = new JTreeMap[java.lang.Long, UnsafeRow]
  private val suffixes = new JTreeMap[java.lang.Long, UnsafeRow]
  private val partialChunks = new JTreeMap[java.lang.Long, ColdChunk]
  private val suffixChunks = new JTreeMap[java.lang.Long, ColdChunk]

  def inline: Boolean = storedRows == Inline

  /** The chunks of rows of `kind` kept in rows of their own, by their first time. */
  def chunks(kind: StateRowKind): JTreeMap[java.lang.Long, ColdChunk] = ofKind(kind, partialChunks, suffixChunks)

  /** The group's rows of `kind`: those in the record and those in its chunks. */
  def count(kind: StateRowKind): Int = {
    var n = entries(kind).size
    val it = chunks(kind).values.iterator
    while (it.hasNext) n += it.next().count
    n
  }

  /** The rows of `kind` kept in the record, by time. */
  def entries(kind: StateRowKind): JTreeMap[java.lang.Long, UnsafeRow] = ofKind(kind, partials, suffixes)

  private def ofKind[T](kind: StateRowKind, partial: T, suffix: T): T = kind match {
    case StateRowKind.Partial => partial
    case StateRowKind.Suffix => suffix
    case other => throw new IllegalArgumentException(s"$other rows are not kept in a group record")
  }

  def inlineCount: Int = count(StateRowKind.Partial) + count(StateRowKind.Suffix)

  /** Whether the record says nothing: the group has no state left. */
  def isEmpty: Boolean =
    meta == null && nextVisit == NoVisit && indexed == NoVisit && inlineCount == 0 && storedRows <= 0

  def clear(): Unit = {
    meta = null
    nextVisit = NoVisit
    indexed = NoVisit
    storedRows = Inline
    partials.clear()
    suffixes.clear()
    partialChunks.clear()
    suffixChunks.clear()
  }

  /** Reads a record value (which must stay as it is while the group is open). */
  def load(value: UnsafeRow, codec: WindowStateCodec): Unit = {
    clear()
    if (codec.recordHasMeta(value)) meta = value
    val offsetAndSize = value.getLong(codec.recordContentsOrdinal)
    val base = value.getBaseObject
    val start = value.getBaseOffset + (offsetAndSize >>> 32)
    nextVisit = Platform.getLong(base, start)
    indexed = Platform.getLong(base, start + 8)
    storedRows = Platform.getInt(base, start + 16)
    val count = Platform.getInt(base, start + 20)
    val end = readEntries(base, start + HeaderBytes, count)
    val chunkCount = Platform.getLong(base, end).toInt
    var at = end + 8
    var i = 0
    while (i < chunkCount) {
      val kind = StateRowKind.of(Platform.getInt(base, at))
      val chunk = ColdChunk(Platform.getLong(base, at + 8), Platform.getLong(base, at + 16), Platform.getInt(base, at + 4))
      chunks(kind).put(chunk.first, chunk)
      at += ChunkHeaderBytes
      i += 1
    }
  }

  /** Reads a chunk's value (which must stay as it is while the group is open) into the record. */
  def loadChunk(value: UnsafeRow, codec: WindowStateCodec): Unit = {
    val offsetAndSize = value.getLong(codec.recordContentsOrdinal)
    val start = value.getBaseOffset + (offsetAndSize >>> 32)
    readEntries(value.getBaseObject, start + 8, Platform.getLong(value.getBaseObject, start).toInt)
  }

  /** Reads `count` entries from `from` into [[entries]]; returns where they end. */
  private def readEntries(base: AnyRef, from: Long, count: Int): Long = {
    // The values of the entries kept as buffers alone are rebuilt into one array.
    var rebuiltBytes = 0L
    var at = from
    var i = 0
    while (i < count) {
      val size = Platform.getInt(base, at + 12)
      if ((Platform.getInt(base, at + 8) & BufferOnly) != 0) rebuiltBytes += valueFixedBytes + size
      at += EntryHeaderBytes + size
      i += 1
    }
    val rebuilt = if (rebuiltBytes == 0) null else new Array[Byte](Math.toIntExact(rebuiltBytes))
    var to = Platform.BYTE_ARRAY_OFFSET.toLong
    at = from
    i = 0
    while (i < count) {
      val time = Platform.getLong(base, at)
      val kindField = Platform.getInt(base, at + 8)
      val size = Platform.getInt(base, at + 12)
      val row = new UnsafeRow(numValueFields)
      if ((kindField & BufferOnly) == 0) {
        row.pointTo(base, at + EntryHeaderBytes, size)
      } else {
        writeBufferValue(base, at + EntryHeaderBytes, size, rebuilt, to)
        row.pointTo(rebuilt, to, valueFixedBytes + size)
        to += valueFixedBytes + size
      }
      entries(StateRowKind.of(kindField & ~BufferOnly)).put(time, row)
      at += EntryHeaderBytes + size
      i += 1
    }
    at
  }

  // A value that holds a buffer alone: its null bits (every field null but the buffer), the
  // buffer's offset and size in the first field's slot, the other slots 0, then the buffer: as
  // an UnsafeProjection of (buffer, null, ...) writes it.
  private val valueFixedBytes = UnsafeRow.calculateBitSetWidthInBytes(numValueFields) + 8 * numValueFields
  private val nullsButBuffer = {
    require(numValueFields <= 64, "a value's null bits fit in one word")
    (if (numValueFields == 64) -1L else (1L << numValueFields) - 1) & ~1L
  }

  private def writeBufferValue(from: AnyRef, fromOffset: Long, size: Int, to: Array[Byte], toOffset: Long): Unit = {
    Platform.putLong(to, toOffset, nullsButBuffer)
    Platform.putLong(to, toOffset + 8, (valueFixedBytes.toLong << 32) | size)
    Platform.copyMemory(from, fromOffset, to, toOffset + valueFixedBytes, size)
  }

  /** Whether a value holds its buffer and nothing else (kept as the buffer alone). */
  private def bufferOnly(value: UnsafeRow): Boolean = {
    if (value.isNullAt(0)) return false
    var i = 1
    while (i < numValueFields) {
      if (!value.isNullAt(i)) return false
      i += 1
    }
    true
  }

  /** The bytes of a value as an entry holds it: the buffer's, or the whole value's. */
  private def entryBytes(value: UnsafeRow): Int =
    if (bufferOnly(value)) value.getLong(0).toInt else value.getSizeInBytes

  /** The contents of the record's `__record` field. */
  def contents(): Array[Byte] = {
    val chunkCount = partialChunks.size + suffixChunks.size
    val size = HeaderBytes + sizeOf(partials) + sizeOf(suffixes) + 8 + ChunkHeaderBytes * chunkCount
    val bytes = new Array[Byte](size)
    val base = Platform.BYTE_ARRAY_OFFSET.toLong
    Platform.putLong(bytes, base, nextVisit)
    Platform.putLong(bytes, base + 8, indexed)
    Platform.putInt(bytes, base + 16, storedRows)
    Platform.putInt(bytes, base + 20, partials.size + suffixes.size)
    var at = base + HeaderBytes
    at = write(bytes, at, StateRowKind.Partial, partials)
    at = write(bytes, at, StateRowKind.Suffix, suffixes)
    Platform.putLong(bytes, at, chunkCount)
    at += 8
    for (kind <- Seq(StateRowKind.Partial, StateRowKind.Suffix)) {
      val it = chunks(kind).values.iterator
      while (it.hasNext) {
        val chunk = it.next()
        Platform.putInt(bytes, at, kind.id)
        Platform.putInt(bytes, at + 4, chunk.count)
        Platform.putLong(bytes, at + 8, chunk.first)
        Platform.putLong(bytes, at + 16, chunk.last)
        at += ChunkHeaderBytes
      }
    }
    bytes
  }

  /** The contents of a chunk's value: the rows of `kind` in `rows`, which leave the record. */
  def chunkContents(kind: StateRowKind, rows: JTreeMap[java.lang.Long, UnsafeRow]): Array[Byte] = {
    val bytes = new Array[Byte](8 + sizeOf(rows))
    Platform.putLong(bytes, Platform.BYTE_ARRAY_OFFSET, rows.size)
    write(bytes, Platform.BYTE_ARRAY_OFFSET + 8, kind, rows)
    bytes
  }

  private def sizeOf(rows: JTreeMap[java.lang.Long, UnsafeRow]): Int = {
    var size = 0
    val it = rows.values.iterator
    while (it.hasNext) size += EntryHeaderBytes + entryBytes(it.next())
    size
  }

  private def write(bytes: Array[Byte], from: Long, kind: StateRowKind,
      rows: JTreeMap[java.lang.Long, UnsafeRow]): Long = {
    var at = from
    val it = rows.entrySet.iterator
    while (it.hasNext) {
      val e: JMap.Entry[java.lang.Long, UnsafeRow] = it.next()
      val row = e.getValue
      Platform.putLong(bytes, at, e.getKey)
      val size = if (bufferOnly(row)) {
        val offsetAndSize = row.getLong(0)
        Platform.putInt(bytes, at + 8, kind.id | BufferOnly)
        Platform.copyMemory(row.getBaseObject, row.getBaseOffset + (offsetAndSize >>> 32), bytes,
          at + EntryHeaderBytes, offsetAndSize.toInt)
        offsetAndSize.toInt
      } else {
        Platform.putInt(bytes, at + 8, kind.id)
        row.writeToMemory(bytes, at + EntryHeaderBytes)
        row.getSizeInBytes
      }
      Platform.putInt(bytes, at + 12, size)
      at += EntryHeaderBytes + size
    }
    at
  }
}

private[state] object GroupRecord {
  val NoVisit: Long = Long.MinValue
  val Inline: Int = -1
  private val HeaderBytes = 24
  private val EntryHeaderBytes = 16
  private val ChunkHeaderBytes = 24
  /** Added to an entry's kind id: the entry holds the buffer of a value that holds nothing else. */
  private val BufferOnly = 1 << 16
}

/** A run of a group's rows of one kind kept in a row of its own, from `first` to `last`. */
private[state] final case class ColdChunk(first: Long, last: Long, count: Int)
