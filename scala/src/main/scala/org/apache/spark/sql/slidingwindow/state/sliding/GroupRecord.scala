package org.apache.spark.sql.slidingwindow.state
package sliding

import java.util.{TreeMap => JTreeMap}

import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * State format 2: one group's record, the value of its [[StateRowKind.Record]] row, as a visit
 * works on it in memory ([[GroupRecordSession]]):
 *  - `queueBack`: the group's QueueBack value (the aggregate of the back of its queue, the last time pushed,
 *    the back's oldest time), kept in the record value's own `__buffer`, `__t1` and `__t2`;
 *  - `nextVisit`: when the group must be visited next (none: [[GroupRecord.NoVisit]]);
 *  - `indexed`: the time of the group's entry in the time index (none: [[GroupRecord.NoVisit]]),
 *    at or before `nextVisit`: an entry is a lower bound, which a group that receives rows in
 *    every micro-batch keeps instead of moving it at each visit ([[RecordVisitTimers]]);
 *  - the group's Partial and Suffix rows, in the record while there are at most the inline limit
 *    of them (`rowsInRecord`); a larger group keeps them as rows of their own, as in state format
 *    1, and the record counts them (`ownRows`);
 *  - the list of its [[chunks]]: runs of its rows kept out of the record, each in a row of its
 *    own whose value's `__record` holds a section of rows.
 *
 * Its bytes, and a chunk's, are read and written by [[GroupRecordCodec]].
 *
 * @param numValueFields the fields of the layout's values (the buffer first)
 */
private[state] final class GroupRecord(numValueFields: Int) {
  import GroupRecord._

  private val codec = new GroupRecordCodec(this, numValueFields)

  var queueBack: UnsafeRow = _
  var nextVisit: Long = NoVisit
  var indexed: Long = NoVisit
  /**
   * Where the group's Partial and Suffix rows live: in this record (and its chunks), or, for a
   * group too large for it, in rows of their own ([[KeyedRows]]), `ownRows` of them.
   */
  var rowsInRecord: Boolean = true
  var ownRows: Int = 0
  private val partials = new TimeRows(numValueFields)
  private val suffixes = new TimeRows(numValueFields)
  // Where the rows of the record's packed sections start in the value loaded (GroupRecordCodec).
  private[state] val partialsRead = new PackedSection
  private[state] val suffixesRead = new PackedSection
  private val partialChunks = new JTreeMap[java.lang.Long, Chunk]
  private val suffixChunks = new JTreeMap[java.lang.Long, Chunk]

  /** The chunks of rows of `kind` kept in rows of their own, by their first time. */
  def chunks(kind: StateRowKind): JTreeMap[java.lang.Long, Chunk] = ofKind(kind, partialChunks, suffixChunks)

  /** The group's rows of `kind`: those in the record and those in its chunks. */
  def count(kind: StateRowKind): Int = {
    var n = entries(kind).size
    val it = chunks(kind).values.iterator
    while (it.hasNext) n += it.next().count
    n
  }

  /** The rows of `kind` kept in the record, by time. */
  def entries(kind: StateRowKind): TimeRows = ofKind(kind, partials, suffixes)

  private def ofKind[T](kind: StateRowKind, partial: T, suffix: T): T = kind match {
    case StateRowKind.Partial => partial
    case StateRowKind.Suffix => suffix
    case other => throw new IllegalArgumentException(s"$other rows are not kept in a group record")
  }

  def rowCount: Int = count(StateRowKind.Partial) + count(StateRowKind.Suffix)

  /** Whether the record says nothing: the group has no state left. */
  def isEmpty: Boolean =
    queueBack == null && nextVisit == NoVisit && indexed == NoVisit && rowCount == 0 && ownRows == 0

  def clear(): Unit = {
    queueBack = null
    nextVisit = NoVisit
    indexed = NoVisit
    rowsInRecord = true
    ownRows = 0
    partials.clear()
    suffixes.clear()
    partialsRead.clear()
    suffixesRead.clear()
    partialChunks.clear()
    suffixChunks.clear()
  }

  /** Reads a record value (which must stay as it is while the group is open: `queueBack` is read in place). */
  def load(value: UnsafeRow, stateCodec: WindowStateCodec): Unit = codec.load(value, stateCodec)

  /** Reads the value of a chunk of rows of `kind` into the record. */
  def loadChunk(kind: StateRowKind, value: UnsafeRow, stateCodec: WindowStateCodec): Unit =
    codec.loadChunk(kind, value, stateCodec)

  /** The contents of the record's `__record` field. */
  def contents(): Array[Byte] = codec.contents()

  /** The contents of a chunk's value: the rows of `rows` at positions [from, until). */
  def chunkContents(rows: TimeRows, from: Int, until: Int): Array[Byte] = codec.chunkContents(rows, from, until)

  /** The rows [[contents]] and [[chunkContents]] wrote by copying their bytes, since the record was created. */
  private[state] def rowsCopied: Long = codec.rowsCopied
}

private[state] object GroupRecord {
  val NoVisit: Long = Long.MinValue
}

/** A run of a group's rows of one kind kept in a row of its own, from `first` to `last`. */
private[state] final case class Chunk(first: Long, last: Long, count: Int)
