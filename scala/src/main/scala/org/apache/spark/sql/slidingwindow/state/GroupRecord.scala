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
 *    and the record counts them (`storedRows`).
 *
 * The record's `__record` field holds, in Spark's byte order (little-endian here):
 * {{{
 *   nextVisit: long | indexed: long (Long.MinValue: none) | storedRows: int (-1: inline) | count: int
 *   count times: time: long | kind id: int | size: int | the row's value (size bytes, 8-aligned)
 * }}}
 * Values read from a record point into it: they stay valid while the group is open.
 */
private[state] final class GroupRecord {
  import GroupRecord._

  var meta: UnsafeRow = _
  var nextVisit: Long = NoVisit
  var indexed: Long = NoVisit
  var storedRows: Int = Inline
  private val partials = new JTreeMap[java.lang.Long, UnsafeRow]
  private val suffixes = new JTreeMap[java.lang.Long, UnsafeRow]

  def inline: Boolean = storedRows == Inline

  /** The rows of `kind` kept in the record, by time. */
  def entries(kind: StateRowKind): JTreeMap[java.lang.Long, UnsafeRow] = kind match {
    case StateRowKind.Partial => partials
    case StateRowKind.Suffix => suffixes
    case other => throw new IllegalArgumentException(s"$other rows are not kept in a group record")
  }

  def inlineCount: Int = partials.size + suffixes.size

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
  }

  /** Reads a record value (which must stay as it is while the group is open). */
  def load(value: UnsafeRow, codec: WindowStateCodec, numValueFields: Int): Unit = {
    clear()
    if (codec.recordHasMeta(value)) meta = value
    val offsetAndSize = value.getLong(codec.recordContentsOrdinal)
    val base = value.getBaseObject
    var at = value.getBaseOffset + (offsetAndSize >>> 32)
    nextVisit = Platform.getLong(base, at)
    indexed = Platform.getLong(base, at + 8)
    storedRows = Platform.getInt(base, at + 16)
    val count = Platform.getInt(base, at + 20)
    at += HeaderBytes
    var i = 0
    while (i < count) {
      val time = Platform.getLong(base, at)
      val kind = StateRowKind.of(Platform.getInt(base, at + 8))
      val size = Platform.getInt(base, at + 12)
      val row = new UnsafeRow(numValueFields)
      row.pointTo(base, at + EntryHeaderBytes, size)
      entries(kind).put(time, row)
      at += EntryHeaderBytes + size
      i += 1
    }
  }

  /** The contents of the record's `__record` field. */
  def contents(): Array[Byte] = {
    var size = HeaderBytes
    size += sizeOf(partials) + sizeOf(suffixes)
    val bytes = new Array[Byte](size)
    val base = Platform.BYTE_ARRAY_OFFSET.toLong
    Platform.putLong(bytes, base, nextVisit)
    Platform.putLong(bytes, base + 8, indexed)
    Platform.putInt(bytes, base + 16, storedRows)
    Platform.putInt(bytes, base + 20, inlineCount)
    var at = base + HeaderBytes
    at = write(bytes, at, StateRowKind.Partial, partials)
    write(bytes, at, StateRowKind.Suffix, suffixes)
    bytes
  }

  private def sizeOf(rows: JTreeMap[java.lang.Long, UnsafeRow]): Int = {
    var size = 0
    val it = rows.values.iterator
    while (it.hasNext) size += EntryHeaderBytes + it.next().getSizeInBytes
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
      Platform.putInt(bytes, at + 8, kind.id)
      Platform.putInt(bytes, at + 12, row.getSizeInBytes)
      row.writeToMemory(bytes, at + EntryHeaderBytes)
      at += EntryHeaderBytes + row.getSizeInBytes
    }
    at
  }
}

private[state] object GroupRecord {
  val NoVisit: Long = Long.MinValue
  val Inline: Int = -1
  private val HeaderBytes = 24
  private val EntryHeaderBytes = 16
}
