package org.apache.spark.sql.slidingwindow.state

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.state.StateRowKind.{Meta, Partial, Record, Suffix}

/**
 * State format 2: each group's [[GroupRecord]], over the rows and time index of state format 1
 * (`rows`). [[open]] reads the group's record (one state row), the calls until [[close]] work on
 * it in memory, and `close` writes it back (one state row) if it changed. So a micro-batch reads
 * and writes one state row per small group it works on, however many rows the group has.
 *
 * A group keeps its Partial and Suffix rows in its record while it has at most `inlineRows` of
 * them; when it has more, they move to rows of their own (those of `rows`, read and written as in
 * state format 1, the record counting them), and back into the record when the group has
 * shrunk to half the limit (not at the limit itself, so that a group near it does not move its
 * rows back and forth every micro-batch). The Meta row is always in the record.
 *
 * The record also says when the group's entry in the time index is due: [[schedule]] writes an
 * entry only when the group has none due earlier (the visit then schedules whatever is next),
 * and a group whose entry is due under this micro-batch's eviction watermark is visited when its
 * rows are ingested, in the same [[open]] ([[claimVisit]]), instead of being read again when
 * [[due]] reaches its entry.
 *
 * @param watermark the micro-batch's eviction watermark: time index entries at or below it are
 *                  consumed by this micro-batch's [[due]].
 */
private[state] final class GroupRecordStore(rows: WindowStateStore, inlineRows: Int, watermark: Option[Long])
  extends WindowStateStore(rows.store, rows.layout) {
  require(inlineRows >= 0, s"${WindowStateStore.inlineRowsKey} must not be negative, got $inlineRows")

  private val record = new GroupRecord
  private var group: UnsafeRow = _ // the group open, a copy
  private var stored = false // the group had a record when opened
  private var changed = false
  private val claimed = mutable.HashSet.empty[UnsafeRow]
  private val consumedThrough = watermark.getOrElse(Long.MinValue)
  private val numValueFields = layout.valueSchema.length

  override def rowsRead: Long = reads + rows.rowsRead
  override def rowsWritten: Long = writes + rows.rowsWritten
  override def rowsRemoved: Long = removes + rows.rowsRemoved
  override def hasTimeIndex: Boolean = rows.hasTimeIndex
  private var movedToRows = 0L
  private var movedToRecords = 0L
  override def groupsMovedToRows: Long = movedToRows
  override def groupsMovedToRecords: Long = movedToRecords

  override def open(group: UnsafeRow): Unit = {
    assert(this.group == null, "a group is open already")
    this.group = group.copy()
    val value = StateStoreApi.get(store, codec.key(group, Record, 0L), layout.dataFamily)
    stored = value != null
    if (stored) {
      reads += 1
      record.load(value.copy(), codec, numValueFields)
    } else {
      record.clear()
    }
    changed = false
  }

  override def close(): Unit = {
    assert(group != null, "no group is open")
    if (record.nextVisit != GroupRecord.NoVisit && record.nextVisit <= consumedThrough) {
      record.nextVisit = GroupRecord.NoVisit // its entry is consumed by this micro-batch's `due`
      changed = true
    }
    if (changed) {
      if (record.inline && record.inlineCount > inlineRows) moveToRows()
      else if (!record.inline && record.storedRows <= inlineRows / 2) moveToRecord()
      if (!record.isEmpty) {
        StateStoreApi.put(store, codec.key(group, Record, 0L), codec.recordValue(record.meta, record.contents()),
          layout.dataFamily)
        writes += 1
      } else if (stored) {
        StateStoreApi.remove(store, codec.key(group, Record, 0L), layout.dataFamily)
        removes += 1
      }
    }
    group = null
  }

  private val kept = Seq(Partial, Suffix)

  private def moveToRows(): Unit = {
    var moved = 0
    for (kind <- kept) {
      val it = record.entries(kind).entrySet.iterator
      while (it.hasNext) {
        val e = it.next()
        rows.insert(group, kind, e.getKey, e.getValue)
        moved += 1
      }
      record.entries(kind).clear()
    }
    record.storedRows = moved
    movedToRows += 1
  }

  private def moveToRecord(): Unit = {
    movedToRecords += 1
    record.storedRows = GroupRecord.Inline
    for (kind <- kept) {
      val cursor = rows.rows(group, kind, Long.MinValue, Long.MaxValue)
      val times = mutable.ArrayBuffer.empty[Long]
      try while (cursor.next()) {
        record.entries(kind).put(cursor.time, cursor.value.copy())
        times += cursor.time
      } finally cursor.close()
      times.foreach(rows.remove(group, kind, _))
    }
  }

  private def check(group: InternalRow): Unit =
    assert(this.group != null && this.group == group, "the group must be open")

  override def get(group: InternalRow, kind: StateRowKind, time: Long): UnsafeRow = {
    check(group)
    kind match {
      case Meta => record.meta
      case _ if record.inline => record.entries(kind).get(time)
      case _ => rows.get(group, kind, time)
    }
  }

  override def put(group: InternalRow, kind: StateRowKind, time: Long, value: UnsafeRow): Unit =
    write(group, kind, time, value, created = false)

  override def insert(group: InternalRow, kind: StateRowKind, time: Long, value: UnsafeRow): Unit =
    write(group, kind, time, value, created = true)

  private def write(group: InternalRow, kind: StateRowKind, time: Long, value: UnsafeRow, created: Boolean): Unit = {
    check(group)
    changed = true
    kind match {
      case Meta => record.meta = value.copy()
      case _ if record.inline => record.entries(kind).put(time, value.copy())
      case _ =>
        rows.put(group, kind, time, value)
        if (created) record.storedRows += 1
    }
  }

  override def remove(group: InternalRow, kind: StateRowKind, time: Long): Unit = {
    check(group)
    changed = true
    kind match {
      case Meta => record.meta = null
      case _ if record.inline => record.entries(kind).remove(time)
      case _ =>
        rows.remove(group, kind, time)
        record.storedRows -= 1
    }
  }

  override def rows(group: InternalRow, kind: StateRowKind, from: Long, to: Long): RowCursor = {
    check(group)
    if (!record.inline) rows.rows(group, kind, from, to)
    else if (from > to) RowCursor.of(Iterator.empty)
    else {
      val it = record.entries(kind).subMap(from, true, to, true).entrySet.iterator
      new RowCursor {
        override def next(): Boolean =
          if (it.hasNext) { val e = it.next(); set(e.getKey, e.getValue); true } else false
      }
    }
  }

  /**
   * Writes a time index entry only when the group has none due earlier: the visit at the earlier
   * one schedules whatever is next. An entry at or below the watermark is consumed by this
   * micro-batch, so it no longer counts.
   */
  override def schedule(time: Long, group: InternalRow): Unit = {
    check(group)
    val pending = record.nextVisit
    val pendingLive = pending != GroupRecord.NoVisit && pending > consumedThrough
    if (!pendingLive || time < pending) {
      if (pendingLive) rows.unschedule(pending, group)
      rows.schedule(time, group)
      record.nextVisit = time
      changed = true
    }
  }

  override def unschedule(time: Long, group: InternalRow): Unit = {
    check(group)
    if (record.nextVisit == time) {
      if (time > consumedThrough) rows.unschedule(time, group)
      record.nextVisit = GroupRecord.NoVisit
      changed = true
    }
  }

  override def due(watermark: Long): Iterator[UnsafeRow] = rows.due(watermark).filterNot(claimed.contains)

  /**
   * Due when its new rows start at or below the watermark (their left windows close), when its
   * scheduled visit is, or, without a time index, always (every group is visited).
   */
  override def claimVisit(group: UnsafeRow, watermark: Long, firstNew: Long): Boolean = {
    check(group)
    val due = !rows.hasTimeIndex || firstNew <= watermark ||
      (record.nextVisit != GroupRecord.NoVisit && record.nextVisit <= watermark)
    if (due) claimed += this.group
    due
  }
}
