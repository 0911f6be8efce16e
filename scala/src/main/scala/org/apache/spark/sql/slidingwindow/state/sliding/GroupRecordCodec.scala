package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

/**
 * The bytes of a [[GroupRecord]]: its record's `__record` field (a header, a section of rows per
 * kind, the chunk list; varints of [[CompactWriter]]), and a chunk's: docs/state-format.md,
 * section "The record's bytes". A section of buffers alone of one size is packed when that is
 * smaller (`writeSection`): about 12 bytes an entry for `count`, `sum` and `max` of integers 30
 * seconds apart, 36 unpacked, 88 for the whole value and its time. The record is read and written
 * whole at each visit, and RocksDB's work follows its bytes. Values read from a record or a chunk
 * are rebuilt into one array as it is read: they stay valid while the group is open.
 *
 * A visit changes a few rows of a record of dozens (update mode adds one and reads them all), so
 * the rows of its packed sections that are still as they were read ([[TimeRows.origin]]) are
 * written back by copying their bytes, where re-encoding each word took a fifth of update mode's
 * visits: a row's bytes are the same when the row before it is the same, so a run of such rows
 * is copied whole after its first one. The bytes written are the same either way.
 *
 * @param record         the record read into and written from
 * @param numValueFields the fields of the layout's values (the buffer first)
 */
private[state] final class GroupRecordCodec(record: GroupRecord, numValueFields: Int) {
  import GroupRecordCodec._

  /** Reads a record value into the record (`queueBack` is read in place). */
  def load(value: UnsafeRow, codec: WindowStateCodec): Unit = {
    record.clear()
    if (codec.recordHasQueueBack(value)) record.queueBack = value
    val offsetAndSize = value.getLong(codec.recordContentsOrdinal)
    val base = value.getBaseObject
    val start = value.getBaseOffset + (offsetAndSize >>> 32)
    record.nextVisit = Platform.getLong(base, start)
    record.indexed = Platform.getLong(base, start + 8)
    val own = Platform.getInt(base, start + 16)
    record.rowsInRecord = own == RowsInRecord
    record.ownRows = math.max(own, 0)
    val in = new CompactReader(base, start + HeaderBytes)
    readSection(in, StateRowKind.Partial, record.partialsRead)
    readSection(in, StateRowKind.Suffix, record.suffixesRead)
    val chunkCount = in.varint().toInt
    var previous = 0L
    var i = 0
    while (i < chunkCount) {
      val kind = StateRowKind.of(in.varint().toInt)
      val count = in.varint().toInt
      val first = previous + in.signed()
      record.chunks(kind).put(first, Chunk(first, first + in.varint(), count))
      previous = first
      i += 1
    }
  }

  /** Reads the value of a chunk of rows of `kind` into the record. */
  def loadChunk(kind: StateRowKind, value: UnsafeRow, codec: WindowStateCodec): Unit = {
    val offsetAndSize = value.getLong(codec.recordContentsOrdinal)
    readSection(new CompactReader(value.getBaseObject, value.getBaseOffset + (offsetAndSize >>> 32)), kind, null)
  }

  /**
   * Reads a section of rows of `kind` into the record's [[GroupRecord.entries]]. A packed section's buffers are kept as
   * their words, and become values when they are read ([[TimeRows.appendWords]]); other values are
   * rebuilt, 8-byte aligned, into one array: a buffer kept alone becomes the value that held it.
   * With `read`, where a packed section's rows start is kept there, and its rows keep their
   * origin: the record's own sections, whose value stays as it is while the group is open.
   */
  private def readSection(in: CompactReader, kind: StateRowKind, read: PackedSection): Unit = {
    val count = in.varint().toInt
    if (count == 0) return
    val fixed = in.varint().toInt
    val packed = fixed > 0 && in.byte() == Packed
    if (packed) readPacked(in, record.entries(kind), count, fixed / 8, read)
    else readRebuilt(in, record.entries(kind), count, fixed)
  }

  private def readPacked(in: CompactReader, rows: TimeRows, count: Int, n: Int, read: PackedSection): Unit = {
    val words = previousWords(n)
    if (read != null) read.begin(in.base, count)
    var time = 0L
    var i = 0
    while (i < count) {
      if (read != null) read.rowStarts(i, in.at)
      time += in.signed()
      val wordsAt = in.at
      var w = 0
      while (w < n) {
        words(w) += in.signed()
        w += 1
      }
      if (read != null) read.wordsTake(i, in.at - wordsAt)
      rows.appendWords(time, words, 0, n, if (read != null) i else TimeRows.NoOrigin)
      i += 1
    }
    if (read != null) read.rowStarts(count, in.at)
  }

  private def readRebuilt(in: CompactReader, rows: TimeRows, count: Int, fixed: Int): Unit = {
    val rebuiltBytes = if (fixed > 0) count.toLong * (valueFixedBytes + fixed) else rebuiltBytesOf(in, count)
    val rebuilt = new Array[Byte](Math.toIntExact(rebuiltBytes))
    var to = Platform.BYTE_ARRAY_OFFSET.toLong
    var time = 0L
    var i = 0
    while (i < count) {
      time += in.signed()
      val alone = fixed > 0 || in.byte() == BufferAlone
      val size = if (fixed > 0) fixed else in.varint().toInt
      val row = new UnsafeRow(numValueFields)
      if (alone) {
        TimeRows.writeBufferValueHeader(numValueFields, size, rebuilt, to)
        Platform.copyMemory(in.base, in.at, rebuilt, to + valueFixedBytes, size)
        in.skip(size)
        row.pointTo(rebuilt, to, valueFixedBytes + size)
        to += valueFixedBytes + size
      } else {
        Platform.copyMemory(in.base, in.at, rebuilt, to, size)
        in.skip(size)
        row.pointTo(rebuilt, to, size)
        to += size
      }
      rows.put(time, row)
      i += 1
    }
  }

  /** The bytes the `count` rows of a section without a fixed size take rebuilt; `in` stays where it is. */
  private def rebuiltBytesOf(in: CompactReader, count: Int): Long = {
    val from = in.at
    var bytes = 0L
    var i = 0
    while (i < count) {
      in.signed()
      val alone = in.byte() == BufferAlone
      val size = in.varint().toInt
      in.skip(size)
      bytes += (if (alone) valueFixedBytes + size else size)
      i += 1
    }
    in.at = from
    bytes
  }

  // The words of the previous buffer of a packed section, reused.
  private var wordsBuffer = new Array[Long](0)
  private def previousWords(n: Int): Array[Long] = {
    if (wordsBuffer.length != n) wordsBuffer = new Array[Long](n)
    java.util.Arrays.fill(wordsBuffer, 0L)
    wordsBuffer
  }

  // A value that holds a buffer alone: its fixed part (TimeRows.writeBufferValueHeader), then the
  // buffer.
  private val valueFixedBytes = TimeRows.valueFixedBytes(numValueFields)

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

  private val out = new CompactWriter

  /** The rows [[contents]] and [[chunkContents]] wrote by copying their bytes, since the record was created. */
  var rowsCopied = 0L

  /** The contents of the record's `__record` field. */
  def contents(): Array[Byte] = {
    out.clear()
    val (partials, suffixes) = (record.entries(StateRowKind.Partial), record.entries(StateRowKind.Suffix))
    writeSection(partials, 0, partials.size)
    writeSection(suffixes, 0, suffixes.size)
    out.varint(record.chunks(StateRowKind.Partial).size + record.chunks(StateRowKind.Suffix).size)
    var previous = 0L
    var k = 0
    while (k < Kinds.length) {
      val kind = Kinds(k)
      k += 1
      val it = record.chunks(kind).values.iterator
      while (it.hasNext) {
        val chunk = it.next()
        out.varint(kind.id)
        out.varint(chunk.count)
        out.signed(chunk.first - previous)
        out.varint(chunk.last - chunk.first)
        previous = chunk.first
      }
    }
    val bytes = out.result(HeaderBytes)
    val base = Platform.BYTE_ARRAY_OFFSET.toLong
    Platform.putLong(bytes, base, record.nextVisit)
    Platform.putLong(bytes, base + 8, record.indexed)
    Platform.putInt(bytes, base + 16, if (record.rowsInRecord) RowsInRecord else record.ownRows)
    bytes
  }

  /** The contents of a chunk's value: the rows of `rows` at positions [from, until). */
  def chunkContents(rows: TimeRows, from: Int, until: Int): Array[Byte] = {
    out.clear()
    writeSection(rows, from, until)
    out.result(0)
  }

  /**
   * A section of rows of one kind: their count, then, if there are any, the size of their
   * buffers if every one is a buffer kept alone of the same size (else 0) and, with that size,
   * whether they are packed; then for each row its time (the difference to the previous one),
   * and in a section without that size a byte saying whether it is a buffer alone and its size;
   * then its bytes, or packed, its buffer's words as differences to the previous row's.
   */
  private def writeSection(rows: TimeRows, from: Int, until: Int): Unit = {
    out.varint(until - from)
    if (from == until) return
    val fixed = fixedBufferSize(rows, from, until)
    out.varint(fixed)
    if (fixed > 0 && fixed % 8 == 0) {
      // Packed, unless its buffers' words take as many bytes as the buffers raw (doubles' words
      // can take 10): then written again, raw.
      val start = out.position
      if (writeRows(rows, from, until, fixed, packed = true) < (until - from).toLong * fixed) return
      out.truncate(start)
    }
    writeRows(rows, from, until, fixed, packed = false)
  }

  /**
   * The rows of a section after its `fixed` size: the packed byte (with a fixed size), then each
   * row. Returns the bytes its buffers' words took, packed: each word as its difference to the
   * same word of the previous buffer, a zigzag varint (null bits do not change; counts, sums and
   * maxima of integers change little from one time to the next).
   */
  private def writeRows(rows: TimeRows, from: Int, until: Int, fixed: Int, packed: Boolean): Long = {
    if (fixed > 0) out.byte(if (packed) Packed else 0)
    val words = if (packed) previousWords(fixed / 8) else null
    val read = if (!packed) null
      else if (rows eq record.entries(StateRowKind.Partial)) record.partialsRead
      else if (rows eq record.entries(StateRowKind.Suffix)) record.suffixesRead
      else null
    var wordBytes = 0L
    var previous = 0L
    var i = from
    while (i < until) {
      val origin = rows.origin(i)
      // The first row read follows no row; the others follow the row read before them (not one
      // without an origin: NoOrigin is -1).
      if (read != null && read.holds(origin) &&
          (if (i == from) origin == 0 else origin > 0 && rows.origin(i - 1) == origin - 1)) {
        // Written as it was read, after the row it followed there: the bytes read, with those of
        // the rows that still follow it.
        var last = i
        while (last + 1 < until && rows.origin(last + 1) == rows.origin(last) + 1) last += 1
        wordBytes += read.copyRows(out, origin, rows.origin(last))
        rowsCopied += last + 1 - i
        previous = rows.timeAt(last)
        var w = 0
        while (w < words.length) {
          words(w) = rows.bufferWord(last, w)
          w += 1
        }
        i = last + 1
      } else {
        val time = rows.timeAt(i)
        out.signed(time - previous)
        previous = time
        wordBytes += writeRow(rows, i, fixed, words)
        i += 1
      }
    }
    wordBytes
  }

  /**
   * The row at `i` of a section after its time: its flag and size without a `fixed` size, then
   * its bytes, or with `words` (packed), its buffer's words as differences to `words` (the
   * previous row's, updated). Returns the bytes its words took, packed.
   */
  private def writeRow(rows: TimeRows, i: Int, fixed: Int, words: Array[Long]): Long = {
    val packed = words != null
    if (rows.keptAsWords(i)) {
      val n = rows.wordsPerRow
      if (fixed == 0) {
        out.byte(BufferAlone)
        out.varint(8 * n)
      }
      val before = out.position
      var w = 0
      while (w < n) {
        val word = rows.bufferWord(i, w)
        if (packed) {
          out.signed(word - words(w))
          words(w) = word
        } else {
          out.rawLong(word)
        }
        w += 1
      }
      if (packed) out.position - before else 0L
    } else {
      val row = rows.valueAt(i)
      if (fixed > 0 || bufferOnly(row)) {
        val offsetAndSize = row.getLong(0)
        val bufferOffset = row.getBaseOffset + (offsetAndSize >>> 32)
        if (packed) {
          val before = out.position
          var w = 0
          while (w < words.length) {
            val word = Platform.getLong(row.getBaseObject, bufferOffset + 8L * w)
            out.signed(word - words(w))
            words(w) = word
            w += 1
          }
          out.position - before
        } else {
          if (fixed == 0) {
            out.byte(BufferAlone)
            out.varint(offsetAndSize.toInt)
          }
          out.copy(row.getBaseObject, bufferOffset, offsetAndSize.toInt)
          0L
        }
      } else {
        out.byte(0)
        out.varint(row.getSizeInBytes)
        out.copy(row.getBaseObject, row.getBaseOffset, row.getSizeInBytes)
        0L
      }
    }
  }

  /** The size of the rows' buffers if every row is a buffer alone of one size, else 0. */
  private def fixedBufferSize(rows: TimeRows, from: Int, until: Int): Int = {
    var size = -1
    var i = from
    while (i < until) {
      // A row still as read from a packed section is a buffer alone of its words.
      val bytes = if (rows.keptAsWords(i) || rows.origin(i) != TimeRows.NoOrigin) 8 * rows.wordsPerRow else {
        val row = rows.valueAt(i)
        if (!bufferOnly(row)) return 0
        row.getLong(0).toInt
      }
      i += 1
      if (size >= 0 && bytes != size) return 0
      size = bytes
    }
    math.max(size, 0)
  }
}

private[state] object GroupRecordCodec {
  /** The header's count of rows of their own, for a group whose rows are in its record. */
  private val RowsInRecord: Int = -1
  private val HeaderBytes = 24
  private val Kinds = Array(StateRowKind.Partial, StateRowKind.Suffix)
  /** The flag byte of a row kept as the buffer of a value that holds nothing else. */
  private val BufferAlone = 1
  /** The mode byte of a section of buffers written as packed words. */
  private val Packed = 1
}

/**
 * Where the rows of a packed section start in the value it was read from, and the bytes their
 * words take there: to write rows still as they were read by copying their bytes.
 */
private[state] final class PackedSection {
  private var base: AnyRef = _
  private var starts = new Array[Long](17) // count + 1: where each row starts, then the section's end
  private var wordBytes = new Array[Long](17) // count + 1: the bytes of the words of the rows before

  def clear(): Unit = base = null

  /** Whether `origin` is the position of a row read into this section since it was cleared. */
  def holds(origin: Int): Boolean = base != null && origin != TimeRows.NoOrigin

  def begin(base: AnyRef, count: Int): Unit = {
    this.base = base
    if (starts.length <= count) {
      starts = new Array[Long](count + 1)
      wordBytes = new Array[Long](count + 1)
    }
    wordBytes(0) = 0
  }

  def rowStarts(i: Int, at: Long): Unit = starts(i) = at

  def wordsTake(i: Int, bytes: Long): Unit = wordBytes(i + 1) = wordBytes(i) + bytes

  /** Writes the bytes of the rows at positions [first, last] as read; returns those of their words. */
  def copyRows(out: CompactWriter, first: Int, last: Int): Long = {
    out.copy(base, starts(first), (starts(last + 1) - starts(first)).toInt)
    wordBytes(last + 1) - wordBytes(first)
  }
}
