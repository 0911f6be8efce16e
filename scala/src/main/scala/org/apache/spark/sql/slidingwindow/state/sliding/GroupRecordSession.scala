package org.apache.spark.sql.slidingwindow.state
package sliding

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.slidingwindow.state.sliding.StateRowKind.{Partial, QueueBack, Record, Suffix}

/**
 * State format 2: the rows of the group open, through its [[GroupRecord]]. [[open]] reads the
 * group's record (one state row, or from the executor's memory: [[RecordCache]]), the calls
 * until [[close]] work on it in memory, and `close` writes it back (one state row) if it changed.
 * So a micro-batch reads and writes one state row per small group it works on, however many rows
 * the group has.
 *
 * A group keeps its Partial and Suffix rows in its record while it has at most `inlineRows` of
 * them; when it has more, they move to rows of their own (`keyed`, read and written as in state
 * format 1, the record counting them), and back into the record when the group has shrunk to half
 * the limit (not at the limit itself, so that a group near it does not move its rows back and
 * forth every micro-batch). The QueueBack row is always in the record. In append mode
 * (`chunked`), a group with more Partial rows than `resweepRows` keeps the ends of its queue in
 * its record and the rest in [[RecordChunks]].
 *
 * @param commitRow the row of the commit, whose token says whether the records cached are those
 *                  of the version opened (with a time index; else no cache)
 */
private[state] final class GroupRecordSession(
    store: StateStore,
    layout: WindowStateLayout,
    codec: WindowStateCodec,
    counters: StateCounters,
    keyed: GroupRows,
    chunks: RecordChunks,
    limits: RecordLimits,
    commitRow: Option[CommitRow],
    recordCacheBytes: Long) extends GroupRows {
  import limits._

  /** The record of the group open. */
  val record = new GroupRecord(layout.valueSchema.length)
  private var group: UnsafeRow = _ // the group open, a copy
  private var opened: UnsafeRow = _ // the row it was opened with, which callers pass on
  private var recordKey: UnsafeRow = _ // the key of its record, a copy (the cache keeps it)
  private var stored = false // the group had a record when opened
  private var changed = false
  private var insertedPartials = 0 // Partial rows created since the group was opened

  /**
   * The records of the last commit on this executor, if it wrote the version opened: taken when
   * the first group is opened; null without.
   */
  lazy val cache: RecordCache = commitRow.filter(_ => recordCacheBytes != 0)
    .map(c => RecordCache.take(store.id, c.token, recordCacheBytes)).orNull

  /** The group open, a copy; null between groups. */
  def openGroup: UnsafeRow = group

  /** The record changed: [[close]] writes it. */
  def markChanged(): Unit = changed = true

  def open(group: UnsafeRow): Unit = {
    assert(this.group == null, "a group is open already")
    this.group = group.copy()
    opened = group
    recordKey = codec.key(group, Record, 0L).copy()
    val cached = if (cache != null) cache.get(recordKey) else null
    if (cached != null) counters.fromCache += 1
    val value = if (cached != null) cached else {
      val read = StateStoreApi.get(store, recordKey, layout.dataFamily)
      if (read == null) null
      else {
        counters.read += 1
        val value = read.copy()
        if (cache != null) cache.put(recordKey, value)
        value
      }
    }
    stored = value != null
    if (stored) record.load(value, codec) else record.clear()
    changed = false
    chunks.open(this.group, record)
    insertedPartials = 0
  }

  def close(): Unit = {
    assert(group != null, "no group is open")
    if (changed || chunks.loadedAny) {
      if (record.rowsInRecord && record.rowCount > inlineRows) moveToRows()
      else if (!record.rowsInRecord && record.ownRows <= inlineRows / 2) moveToRecord()
      // A group swept again at each visit reads all its rows: it keeps them in its record.
      if (chunked && record.rowsInRecord && !resweepable) {
        chunks.spill(Partial, hotRows, hotRows)
        chunks.spill(Suffix, hotRows, 0)
      }
      chunks.removeLoaded()
      if (!record.isEmpty) {
        val value = codec.recordValue(record.queueBack, record.contents())
        StateStoreApi.put(store, recordKey, value, layout.dataFamily)
        if (cache != null) cache.put(recordKey, value.copy())
        counters.written += 1
        if (!stored) counters.created += 1
      } else if (stored) {
        StateStoreApi.remove(store, recordKey, layout.dataFamily)
        if (cache != null) cache.remove(recordKey)
        counters.removed += 1
      }
    }
    group = null
    opened = null
    recordKey = null
  }

  /**
   * Swept again in memory: a group with at most `resweepRows` Partial rows, or with at most
   * [[GroupRecordSession.ResweepRatio]] times the Partial rows it received since it was opened (a
   * visit at its ingestion then pushes most of its rows anyway, and a queue's chunks would be read
   * and written for them); and whose queue's front, if it has one, is empty: flips remove the
   * Partial rows they move into the front ([[WindowState.flipsRemovePartials]]), and a sweep needs
   * every one.
   */
  def resweepable: Boolean =
    record.rowsInRecord && record.count(Suffix) == 0 &&
      record.count(Partial) <= math.max(resweepRows, GroupRecordSession.ResweepRatio * insertedPartials)

  private val kept = Seq(Partial, Suffix)

  private def moveToRows(): Unit = {
    var moved = 0
    for (kind <- kept) {
      chunks.load(kind, Long.MinValue, Long.MaxValue)
      val entries = record.entries(kind)
      var i = 0
      while (i < entries.size) {
        keyed.insert(group, kind, entries.timeAt(i), entries.valueAt(i))
        i += 1
      }
      moved += entries.size
      entries.clear()
    }
    record.rowsInRecord = false
    record.ownRows = moved
    counters.movedToRows += 1
  }

  private def moveToRecord(): Unit = {
    counters.movedToRecords += 1
    record.rowsInRecord = true
    record.ownRows = 0
    for (kind <- kept) {
      val cursor = keyed.rows(group, kind, Long.MinValue, Long.MaxValue)
      val times = mutable.ArrayBuffer.empty[Long]
      try while (cursor.next()) {
        record.entries(kind).put(cursor.time, cursor.value.copy())
        times += cursor.time
      } finally cursor.close()
      times.foreach(keyed.remove(group, kind, _))
    }
  }

  /** Checks that a call is about the group open. */
  def check(group: InternalRow): Unit =
    assert(this.group != null && ((group eq opened) || this.group == group), "the group must be open")

  override def get(group: InternalRow, kind: StateRowKind, time: Long): UnsafeRow = {
    check(group)
    kind match {
      case QueueBack => record.queueBack
      case _ if record.rowsInRecord => chunks.load(kind, time, time); record.entries(kind).get(time)
      case _ => keyed.get(group, kind, time)
    }
  }

  override def put(group: InternalRow, kind: StateRowKind, time: Long, value: UnsafeRow): Unit =
    write(group, kind, time, value, created = false)

  override def insert(group: InternalRow, kind: StateRowKind, time: Long, value: UnsafeRow): Unit =
    write(group, kind, time, value, created = true)

  private def write(group: InternalRow, kind: StateRowKind, time: Long, value: UnsafeRow, created: Boolean): Unit = {
    check(group)
    changed = true
    if (created && kind == Partial) insertedPartials += 1
    kind match {
      case QueueBack => record.queueBack = value.copy()
      case _ if record.rowsInRecord => chunks.load(kind, time, time); record.entries(kind).put(time, value.copy())
      case _ if created =>
        keyed.insert(group, kind, time, value)
        record.ownRows += 1
      case _ =>
        keyed.put(group, kind, time, value)
    }
  }

  override def remove(group: InternalRow, kind: StateRowKind, time: Long): Unit = {
    check(group)
    changed = true
    kind match {
      case QueueBack => record.queueBack = null
      case _ if record.rowsInRecord => chunks.load(kind, time, time); record.entries(kind).remove(time)
      case _ =>
        keyed.remove(group, kind, time)
        record.ownRows -= 1
    }
  }

  override def rows(group: InternalRow, kind: StateRowKind, from: Long, to: Long): RowCursor = {
    check(group)
    if (record.rowsInRecord) chunks.cursor(kind, from, to) else keyed.rows(group, kind, from, to)
  }
}

private[state] object GroupRecordSession {
  /** A group with at most this many times the Partial rows it just received is swept again. */
  val ResweepRatio = 4
}
