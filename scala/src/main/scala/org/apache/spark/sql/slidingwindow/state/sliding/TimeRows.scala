package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

/**
 * Rows by time, ascending, in parallel arrays: the rows of one kind that a [[GroupRecord]] holds.
 * A visit reads them in order, adds at the newest end, removes at the oldest and moves runs of
 * them out to chunks; a group's record holds a few dozen at most. Sorted arrays do all of that
 * with binary searches and short array copies, where a `java.util.TreeMap` allocated a node and
 * a boxed time per row at each read of the record (a tenth of the samples of a large window's
 * visits, with the O(n) sizes of its range views).
 *
 * A row read from a record's packed section, a value that holds a buffer of fixed width and
 * nothing else, is kept as its buffer's words ([[appendWords]]) and becomes an `UnsafeRow` only
 * when it is read ([[valueAt]]): a visit reads a few of the rows of its record, and writes them
 * all back from their words ([[bufferWord]]).
 *
 * A row read from the record's own packed section keeps its position there ([[origin]]), until
 * it is replaced: the record is written back by copying the bytes of the runs of rows that are
 * still as they were read ([[GroupRecord]]), where a visit changes a few rows of dozens.
 *
 * Indexes are positions in time order, valid until the next change.
 *
 * @param numValueFields the fields of the layout's values (the buffer first)
 */
private[state] final class TimeRows(numValueFields: Int) {
  require(numValueFields <= 64, "a value's null bits fit in one word")
  private var times = new Array[Long](16)
  private var values = new Array[UnsafeRow](16) // null: the row is kept as words
  private var words = new Array[Long](0) // `width` words per row, those of the rows kept as words
  private var origins = new Array[Int](16) // NoOrigin, or the row's position in the section it was read from
  private var width = 0
  private var count = 0

  def size: Int = count
  def isEmpty: Boolean = count == 0

  def clear(): Unit = {
    java.util.Arrays.fill(values.asInstanceOf[Array[AnyRef]], 0, count, null)
    count = 0
  }

  /**
   * The position of the row at `i` in the packed section it was read from with an origin
   * ([[appendWords]]), if it is still the row read there (its words, [[bufferWord]], are still
   * valid, kept as words or not); else [[TimeRows.NoOrigin]].
   */
  def origin(i: Int): Int = origins(i)

  def timeAt(i: Int): Long = times(i)

  /** The row at position `i` (one kept as words becomes a row, kept from then on). */
  def valueAt(i: Int): UnsafeRow = {
    if (values(i) == null) values(i) = TimeRows.bufferValue(numValueFields, words, i * width, width)
    values(i)
  }

  /** Whether the row at `i` is kept as the `width` words of a buffer alone ([[bufferWord]]). */
  def keptAsWords(i: Int): Boolean = values(i) == null

  /** The words of the buffers of rows kept as words. */
  def wordsPerRow: Int = width

  /** Copies the `wordsPerRow` words of the buffer of the row at `i`, kept as words, to `to`. */
  def copyWords(i: Int, to: Array[Long]): Unit = System.arraycopy(words, i * width, to, 0, width)

  /** Word `w` of the buffer of the row at `i`, kept as words. */
  def bufferWord(i: Int, w: Int): Long = words(i * width + w)

  /** The position of the first row at or after `time` (`size` if none). */
  def ceilingIndex(time: Long): Int = {
    if (count == 0 || time > times(count - 1)) return count
    val i = java.util.Arrays.binarySearch(times, 0, count, time)
    if (i >= 0) i else -i - 1
  }

  /** The position of the first row after `time` (`size` if none). */
  def higherIndex(time: Long): Int =
    if (time == Long.MaxValue) count else ceilingIndex(time + 1)

  private def indexOf(time: Long): Int =
    if (count == 0 || time > times(count - 1)) -count - 1 else java.util.Arrays.binarySearch(times, 0, count, time)

  def get(time: Long): UnsafeRow = {
    val i = indexOf(time)
    if (i >= 0) valueAt(i) else null
  }

  /** Sets the row at `time` (appending, the common case, without a search). */
  def put(time: Long, value: UnsafeRow): Unit = {
    val at = indexOf(time)
    if (at >= 0) { values(at) = value; origins(at) = TimeRows.NoOrigin }
    else {
      insertAt(-at - 1, time)
      values(-at - 1) = value
    }
  }

  /**
   * Adds, at `time`, a value that holds a buffer of `n` words (`n` the same for every such row)
   * and nothing else, from `source` at `from`: kept as words until it is read. `origin`: its
   * position in the packed section it is read from, if the caller keeps that section's bytes.
   */
  def appendWords(time: Long, source: Array[Long], from: Int, n: Int, origin: Int = TimeRows.NoOrigin): Unit = {
    if (n != width) {
      (0 until count).foreach(valueAt) // rows of another width (none, where buffers have a fixed width)
      java.util.Arrays.fill(origins, 0, count, TimeRows.NoOrigin) // their words are gone
      width = n
      words = new Array[Long](times.length * n)
    }
    val i = indexOf(time)
    assert(i < 0, s"a row at $time is held already")
    val at = -i - 1
    insertAt(at, time)
    origins(at) = origin
    System.arraycopy(source, from, words, at * width, n)
  }

  private def insertAt(at: Int, time: Long): Unit = {
    if (count == times.length) {
      times = java.util.Arrays.copyOf(times, 2 * count)
      values = java.util.Arrays.copyOf(values, 2 * count)
      origins = java.util.Arrays.copyOf(origins, 2 * count)
      if (width > 0) words = java.util.Arrays.copyOf(words, 2 * count * width)
    }
    if (at < count) {
      System.arraycopy(times, at, times, at + 1, count - at)
      System.arraycopy(values, at, values, at + 1, count - at)
      System.arraycopy(origins, at, origins, at + 1, count - at)
      if (width > 0) System.arraycopy(words, at * width, words, (at + 1) * width, (count - at) * width)
    }
    times(at) = time
    values(at) = null
    origins(at) = TimeRows.NoOrigin
    count += 1
  }

  /** Removes the row at `time`, if any. */
  def remove(time: Long): Unit = {
    val i = indexOf(time)
    if (i >= 0) removeRange(i, i + 1)
  }

  /** Removes the rows at positions [from, until). */
  def removeRange(from: Int, until: Int): Unit = if (from < until) {
    System.arraycopy(times, until, times, from, count - until)
    System.arraycopy(values, until, values, from, count - until)
    System.arraycopy(origins, until, origins, from, count - until)
    if (width > 0) System.arraycopy(words, until * width, words, from * width, (count - until) * width)
    java.util.Arrays.fill(values.asInstanceOf[Array[AnyRef]], count - (until - from), count, null)
    count -= until - from
  }

  /** The times held, ascending (a copy). */
  def timesArray: Array[Long] = java.util.Arrays.copyOf(times, count)
}

private[state] object TimeRows {
  /** The [[TimeRows.origin]] of a row not read from a kept section, or replaced since. */
  val NoOrigin: Int = -1

  /** The bytes of a value's fields before its variable-length part: its null bits and slots. */
  def valueFixedBytes(numValueFields: Int): Int =
    UnsafeRow.calculateBitSetWidthInBytes(numValueFields) + 8 * numValueFields

  /**
   * Writes, at `toOffset` in `to`, the fixed part of a value that holds a buffer of `size` bytes
   * alone: its null bits (every field null but the buffer), the buffer's offset and size in the
   * first field's slot, the other slots 0; the buffer follows: as an UnsafeProjection of
   * (buffer, null, ...) writes it. At most 64 fields (checked by [[TimeRows]]).
   */
  def writeBufferValueHeader(numValueFields: Int, size: Int, to: Array[Byte], toOffset: Long): Unit = {
    Platform.putLong(to, toOffset, (if (numValueFields == 64) -1L else (1L << numValueFields) - 1) & ~1L)
    Platform.putLong(to, toOffset + 8, (valueFixedBytes(numValueFields).toLong << 32) | size)
  }

  /** A value that holds a buffer alone, of the `n` words at `from` ([[writeBufferValueHeader]]). */
  def bufferValue(numValueFields: Int, words: Array[Long], from: Int, n: Int): UnsafeRow = {
    val fixed = valueFixedBytes(numValueFields)
    val bytes = new Array[Byte](fixed + 8 * n)
    val base = Platform.BYTE_ARRAY_OFFSET.toLong
    writeBufferValueHeader(numValueFields, 8 * n, bytes, base)
    var w = 0
    while (w < n) {
      Platform.putLong(bytes, base + fixed + 8L * w, words(from + w))
      w += 1
    }
    val row = new UnsafeRow(numValueFields)
    row.pointTo(bytes, bytes.length)
    row
  }
}
