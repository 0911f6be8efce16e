package org.apache.spark.sql.slidingwindow.state

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.state.StateRowKind.{Meta, Partial, Record, Suffix}
import org.apache.spark.unsafe.Platform

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
 * rows back and forth every micro-batch). The Meta row is always in the record. In append mode, a
 * group with more Partial rows than `resweepRows` keeps the ends of its queue in its record and
 * the rest in chunks ([[RecordLimits]]; see `spill`).
 *
 * The record also says when the group must be visited next (`nextVisit`, kept in memory by
 * [[schedule]]) and where its entry in the time index is (`indexed`); `close` makes the index
 * agree. A group that receives rows (is opened by the ingestion, [[claimVisit]]) is visited then
 * if it is due, in the same [[open]], and keeps its entry, even one under the watermark, which
 * [[due]] passes over ([[claimed]]); so a group that receives rows in every micro-batch writes its
 * record and nothing else. The entries as lower bounds, the claims, and when `due` need not read
 * the index (the entries counted in [[StoredRowCount]]): docs/state-format.md, section
 * "Invariants", 7 to 10.
 *
 * @param watermark   the micro-batch's eviction watermark: visits due at or below it are made
 *                    by this micro-batch.
 * @param verifyIndex for the tests: each commit checks the count of the time index's entries
 *                    against the entries themselves (read all).
 */
private[state] final class GroupRecordStore(
    rows: WindowStateStore,
    watermark: Option[Long],
    limits: RecordLimits,
    recordCacheBytes: Long,
    verifyIndex: Boolean = false)
  extends WindowStateStore(rows.store, rows.layout) {
  import limits._

  private val record = new GroupRecord(layout.valueSchema.length)
  private var group: UnsafeRow = _ // the group open, a copy
  private var opened: UnsafeRow = _ // the row it was opened with, which callers pass on
  private var recordKey: UnsafeRow = _ // the key of its record, a copy (the cache keeps it)
  private var stored = false // the group had a record when opened
  private var changed = false
  private var active = false // opened by the ingestion: the group received rows
  private var inserted = 0 // Partial rows created since the group was opened
  // What [[due]] passes over in this micro-batch: the entries under the watermark that groups
  // visited at their ingestion keep, or, without a time index, those groups.
  private val claimed = new GroupSet
  private val consumedThrough = watermark.getOrElse(Long.MinValue)

  override def rowsRead: Long = reads + rows.rowsRead
  override def rowsWritten: Long = writes + rows.rowsWritten
  override def rowsRemoved: Long = removes + rows.rowsRemoved
  override def rowsCreated: Long = creates + rows.rowsCreated

  // With a time index (RocksDB), the rows are counted here, not by the provider.
  private val count = if (rows.hasTimeIndex) Some(new StoredRowCount(store)) else None
  override def rowCount: Option[Long] = count.map(_.stored + rowsCreated - rowsRemoved)

  // With the row count, the records of the last commit on this executor, if it wrote the version
  // opened ([[RecordCache]]): taken when the first group is opened.
  private var cacheHits = 0L
  override def recordsFromCache: Long = cacheHits
  private lazy val cache: RecordCache = count.filter(_ => recordCacheBytes != 0)
    .map(c => RecordCache.take(store.id, c.token, recordCacheBytes)).orNull

  override def prepareCommit(): Unit = count.foreach { c =>
    val entries = c.indexEntries + indexCreated - indexRemoved
    if (verifyIndex && entries != rows.indexEntries()) {
      throw new IllegalStateException(s"time index entries counted: $entries, in the index: ${rows.indexEntries()}")
    }
    c.save(rowCount.get, if (cache != null) cache.token else 0L, entries)
  }

  // The time index's entries this micro-batch created and removed; of those it removed, the
  // entries at or below the watermark that no group claimed (`claimed` holds those claimed), and
  // whether the group open claimed its entry.
  private var indexCreated = 0L
  private var indexRemoved = 0L
  private var unclaimedRemovedDue = 0L
  private var claimedEntry = false
  private var claimsElsewhere = false // a claim under another watermark than this micro-batch's
  override def committed(): Unit = if (cache != null) RecordCache.publish(store.id, cache, recordCacheBytes)
  override def hasTimeIndex: Boolean = rows.hasTimeIndex
  private var movedToRows = 0L
  private var movedToRecords = 0L
  override def groupsMovedToRows: Long = movedToRows
  override def groupsMovedToRecords: Long = movedToRecords

  override def open(group: UnsafeRow): Unit = {
    assert(this.group == null, "a group is open already")
    this.group = group.copy()
    opened = group
    recordKey = codec.key(group, Record, 0L).copy()
    val cached = if (cache != null) cache.get(recordKey) else null
    if (cached != null) cacheHits += 1
    val value = if (cached != null) cached else {
      val read = StateStoreApi.get(store, recordKey, layout.dataFamily)
      if (read == null) null
      else {
        reads += 1
        val value = read.copy()
        if (cache != null) cache.put(recordKey, value)
        value
      }
    }
    stored = value != null
    if (stored) record.load(value, codec) else record.clear()
    changed = false
    active = false
    if (loadedChunks.nonEmpty) loadedChunks.clear()
    if (writtenChunks.nonEmpty) writtenChunks.clear()
    inserted = 0
    claimedEntry = false
  }

  override def close(): Unit = {
    assert(group != null, "no group is open")
    if (record.nextVisit != GroupRecord.NoVisit && record.nextVisit <= consumedThrough) {
      record.nextVisit = GroupRecord.NoVisit // made by this micro-batch
      changed = true
    }
    if (rows.hasTimeIndex) updateIndex()
    if (changed) {
      if (record.inline && record.inlineCount > inlineRows) moveToRows()
      else if (!record.inline && record.storedRows <= inlineRows / 2) moveToRecord()
      // A group swept again at each visit reads all its rows: it keeps them in its record.
      if (chunked && record.inline && !resweepable) {
        spill(Partial, hotRows, hotRows)
        spill(Suffix, hotRows, 0)
      }
      removeLoadedChunks()
      if (!record.isEmpty) {
        val value = codec.recordValue(record.meta, record.contents())
        StateStoreApi.put(store, recordKey, value, layout.dataFamily)
        if (cache != null) cache.put(recordKey, value.copy())
        writes += 1
        if (!stored) creates += 1
      } else if (stored) {
        StateStoreApi.remove(store, recordKey, layout.dataFamily)
        if (cache != null) cache.remove(recordKey)
        removes += 1
      }
    }
    group = null
    opened = null
    recordKey = null
  }

  /**
   * Makes the group's entry in the time index agree with its next visit: an entry at or before
   * it stays where it is, unless it is under the watermark and the group received no rows (it
   * moves to the next visit, not to be met by every micro-batch's [[due]] until then).
   */
  private def updateIndex(): Unit = {
    val (next, indexed) = (record.nextVisit, record.indexed)
    val keep = next != GroupRecord.NoVisit && indexed != GroupRecord.NoVisit && indexed <= next &&
      (indexed > consumedThrough || active)
    if (!keep && indexed != next) {
      if (indexed != GroupRecord.NoVisit) {
        rows.unschedule(indexed, group)
        indexRemoved += 1
        if (indexed <= consumedThrough && !claimedEntry) unclaimedRemovedDue += 1
      }
      if (next != GroupRecord.NoVisit) {
        rows.schedule(next, group)
        indexCreated += 1
      }
      record.indexed = next
      changed = true
    }
  }

  private val kept = Seq(Partial, Suffix)

  private def moveToRows(): Unit = {
    var moved = 0
    for (kind <- kept) {
      load(kind, Long.MinValue, Long.MaxValue)
      val entries = record.entries(kind)
      var i = 0
      while (i < entries.size) {
        rows.insert(group, kind, entries.timeAt(i), entries.valueAt(i))
        i += 1
      }
      moved += entries.size
      entries.clear()
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

  /**
   * Swept again in memory: a group with at most `resweepRows` Partial rows, or with at most
   * [[GroupRecordStore.ResweepRatio]] times the Partial rows it received since it was opened (a
   * visit at its ingestion then pushes most of its rows anyway, and a queue's chunks would be
   * read and written for them); and whose queue's front, if it has one, is empty: the front keeps
   * no Partial rows ([[frontKeepsPartials]]), and a sweep needs every one.
   */
  override def resweepable: Boolean =
    record.inline && record.count(Suffix) == 0 &&
      record.count(Partial) <= math.max(resweepRows, GroupRecordStore.ResweepRatio * inserted)

  /** A flip moves Partial rows into the front, whose Suffix rows then hold their times. */
  override def frontKeepsPartials: Boolean = false

  // Chunks: a large group's rows that its visits do not touch, out of its record. A visit touches
  // the oldest and newest rows of its queue (the right windows of the oldest times, the rows that
  // expire, the suffixes it pops; the rows it adds): those stay in the record, at most `hotRows`
  // at each end (plus up to `chunkRows` more before they move out, so that rows move out a chunk
  // at a time), and the rows between them are in chunks of at most `chunkRows`, each a row of its
  // own, keyed by its first time and listed in the record. A read or write of a time a chunk
  // holds loads the chunk into the record (and its row is deleted at `close`, unless written
  // again under the same key); `close` moves rows out again. So a visit reads and writes its
  // record, whatever the window holds, and a chunk about every `chunkRows` rows that it adds,
  // expires or pops.
  private val loadedChunks = mutable.HashSet.empty[(StateRowKind, Long)]
  private val writtenChunks = mutable.HashSet.empty[(StateRowKind, Long)]

  /** Loads the chunks of `kind` that hold times in [from, to]. */
  private def load(kind: StateRowKind, from: Long, to: Long): Unit = {
    val chunks = record.chunks(kind)
    if (!chunks.isEmpty && from <= to) {
      val before = chunks.floorEntry(from)
      if (before != null && before.getValue.last >= from) loadChunk(kind, before.getKey)
      var next = chunks.ceilingKey(from)
      while (next != null && next <= to) {
        loadChunk(kind, next)
        next = chunks.ceilingKey(from)
      }
    }
  }

  // Changes of the chunk lists since the group was opened (the cursors' cached lookups).
  private var chunkChanges = 0L

  private def loadChunk(kind: StateRowKind, first: Long): Unit = {
    record.chunks(kind).remove(first)
    chunkChanges += 1
    val value = StateStoreApi.get(store, codec.key(group, StateRowKind.chunkOf(kind), first), rows.chunkFamily)
    assert(value != null, s"the $kind chunk at $first of a group is missing")
    reads += 1
    record.loadChunk(kind, value, codec) // its rows are copied out of it
    loadedChunks += ((kind, first))
    changed = true
  }

  /**
   * Moves the rows of `kind` that no visit is about to touch out of the record: all but the
   * oldest `head` and the newest `tail`, once there are `chunkRows` more than those, in chunks of
   * at most `chunkRows` that never span a chunk already out or a row kept. At an end that keeps
   * its newest rows (`tail` > 0: the back of a queue, which grows by a row or a few at each
   * visit), rows move out a whole chunk at a time, and the rest waits in the record (moving them
   * all would make a chunk of one row every `chunkRows`). Most visits move nothing, and find it
   * out from the positions of the chunks' bounds among the rows kept.
   */
  private def spill(kind: StateRowKind, head: Int, tail: Int): Unit = {
    val entries = record.entries(kind)
    val chunks = record.chunks(kind)
    if (entries.isEmpty) return
    // The rows from `from` to the kept tail: all, or where the tail grows, whole chunks.
    def toTail(from: Int): Int = {
      val rows = entries.size - tail - from
      from + (if (tail == 0) rows else rows - rows % chunkRows)
    }
    if (chunks.isEmpty) {
      if (entries.size > head + tail + chunkRows) spillRun(kind, head, toTail(head))
    } else {
      // The rows before every chunk (the head), between chunks, and after them (the tail); each
      // run moved out shifts the positions after it.
      val firstOut = chunks.firstKey
      val lastOut = chunks.lastEntry.getValue.last
      val before = entries.ceilingIndex(firstOut)
      if (before > head + chunkRows) spillRun(kind, head, before)
      spillRun(kind, entries.higherIndex(firstOut), entries.ceilingIndex(lastOut))
      val after = entries.higherIndex(lastOut)
      if (entries.size - after > tail + chunkRows) spillRun(kind, after, toTail(after))
    }
  }

  /**
   * Moves the rows of `kind` at positions [from, until) of the record's out of it: chunks of at
   * most `chunkRows`, each ending before the next chunk already out.
   */
  private def spillRun(kind: StateRowKind, from: Int, until: Int): Unit = {
    val entries = record.entries(kind)
    val chunks = record.chunks(kind)
    var end = until
    while (from < end) {
      val first = entries.timeAt(from)
      val nextOut = chunks.higherKey(first)
      var i = from
      while (i < end && i - from < chunkRows && (nextOut == null || entries.timeAt(i) < nextOut)) i += 1
      StateStoreApi.put(store, codec.key(group, StateRowKind.chunkOf(kind), first),
        codec.recordValue(null, record.chunkContents(entries, from, i)), rows.chunkFamily)
      writes += 1
      if (!loadedChunks.contains((kind, first))) creates += 1 // else it replaces the chunk loaded
      writtenChunks += ((kind, first))
      chunks.put(first, ColdChunk(first, entries.timeAt(i - 1), i - from))
      chunkChanges += 1
      entries.removeRange(from, i)
      end -= i - from
    }
  }

  /** Deletes the rows of the chunks loaded, but those written again under the same key. */
  private def removeLoadedChunks(): Unit = if (loadedChunks.nonEmpty) {
    loadedChunks.foreach { loaded =>
      if (!writtenChunks.contains(loaded)) {
        StateStoreApi.remove(store, codec.key(group, StateRowKind.chunkOf(loaded._1), loaded._2), rows.chunkFamily)
        removes += 1
      }
    }
    loadedChunks.clear()
    writtenChunks.clear()
  }

  private def check(group: InternalRow): Unit =
    assert(this.group != null && ((group eq opened) || this.group == group), "the group must be open")

  override def get(group: InternalRow, kind: StateRowKind, time: Long): UnsafeRow = {
    check(group)
    kind match {
      case Meta => record.meta
      case _ if record.inline => load(kind, time, time); record.entries(kind).get(time)
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
    if (created && kind == Partial) inserted += 1
    kind match {
      case Meta => record.meta = value.copy()
      case _ if record.inline => load(kind, time, time); record.entries(kind).put(time, value.copy())
      case _ if created =>
        rows.insert(group, kind, time, value)
        record.storedRows += 1
      case _ =>
        rows.put(group, kind, time, value)
    }
  }

  override def remove(group: InternalRow, kind: StateRowKind, time: Long): Unit = {
    check(group)
    changed = true
    kind match {
      case Meta => record.meta = null
      case _ if record.inline => load(kind, time, time); record.entries(kind).remove(time)
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
      // Chunks are loaded as the cursor reaches them (the one holding `from`, if any, at the
      // first row); rows may be written while it is open.
      val entries = record.entries(kind)
      val chunks = record.chunks(kind)
      new RowCursor {
        private var started = false
        private var at = 0L // the last time returned
        private var atIndex = 0 // its position when it was returned
        private def stillAtIndex = atIndex < entries.size && entries.timeAt(atIndex) == at

        // Rows may have been written in between: the position of the last row returned is checked,
        // and searched again only if it moved; the next chunk is looked up again only if a chunk
        // was loaded or moved out since.
        private def nextEntry =
          if (!started) entries.ceilingIndex(from)
          else if (stillAtIndex) atIndex + 1
          else entries.higherIndex(at)
        private var chunkSeen = -1L // chunkChanges when `chunkAfter` was looked up
        private var chunkAfter: java.lang.Long = _
        private def nextChunk = {
          if (chunkSeen != chunkChanges || (started && chunkAfter != null && chunkAfter <= at)) {
            chunkAfter = if (chunks.isEmpty) null else if (started) chunks.higherKey(at) else chunks.ceilingKey(from)
            chunkSeen = chunkChanges
          }
          chunkAfter
        }

        override def next(): Boolean = {
          if (!started) load(kind, from, from)
          var e = nextEntry
          var c = nextChunk
          while (c != null && c <= to && (e == entries.size || c < entries.timeAt(e))) {
            loadChunk(kind, c)
            e = nextEntry
            c = nextChunk
          }
          started = true
          if (e == entries.size || entries.timeAt(e) > to) false
          else {
            at = entries.timeAt(e)
            atIndex = e
            set(at, null)
            true
          }
        }

        // Read only if asked for: a row kept as words becomes a value then (most cursors of a
        // visit read times only).
        override def value: UnsafeRow =
          if (stillAtIndex) entries.valueAt(atIndex) else entries.get(at)

        // The buffer of a row kept as words is read from a copy of them, without making its
        // value (a sweep reads the buffer of each partial near the new rows, and pushes it).
        private var bufferWords: Array[Long] = _
        private var bufferView: UnsafeRow = _
        override def buffer(codec: WindowStateCodec): UnsafeRow =
          if (!stillAtIndex || !entries.keptAsWords(atIndex)) codec.buffer(value)
          else {
            val n = entries.wordsPerRow
            if (bufferWords == null || bufferWords.length != n) {
              bufferWords = new Array[Long](n)
              bufferView = new UnsafeRow(layout.numBufferFields)
            }
            entries.copyWords(atIndex, bufferWords)
            bufferView.pointTo(bufferWords, Platform.LONG_ARRAY_OFFSET, 8 * n)
            bufferView
          }
      }
    }
  }

  /**
   * The group's next visit is the earliest scheduled, of those later than the watermark (a visit
   * due at or below it is made by this micro-batch). The time index follows at [[close]].
   */
  override def schedule(time: Long, group: InternalRow): Unit = {
    check(group)
    val pending = record.nextVisit
    if (pending == GroupRecord.NoVisit || pending <= consumedThrough || time < pending) {
      record.nextVisit = time
      changed = true
    }
  }

  override def unschedule(time: Long, group: InternalRow): Unit = {
    check(group)
    if (record.nextVisit == time) {
      record.nextVisit = GroupRecord.NoVisit
      changed = true
    }
  }

  /**
   * With a time index, the groups whose entry is at or below the watermark, but those claimed;
   * entries are not consumed: [[close]] moves them. Without one, every group but those claimed.
   */
  override def due(watermark: Long): Iterator[UnsafeRow] =
    if (onlyClaimedEntriesDue(watermark)) Iterator.empty else rows.scheduledThrough(watermark, claimed)

  /**
   * Whether every entry of the index at or below `watermark` is claimed, without reading the
   * index: when the entries at the version opened (`stored`) are all those claimed and those under
   * the watermark removed unclaimed (docs/state-format.md, section "Invariants", 10).
   */
  private def onlyClaimedEntriesDue(watermark: Long): Boolean = count.exists { c =>
    val stored = c.indexEntries
    watermark == consumedThrough && !claimsElsewhere && stored == claimed.count + unclaimedRemovedDue
  }

  /** Whether the group met by [[due]] has a visit due: its entry may be a lower bound only. */
  override def stillDue(watermark: Long): Boolean =
    record.nextVisit != GroupRecord.NoVisit && record.nextVisit <= watermark

  /**
   * Due when its new rows start at or below the watermark (their left windows close), when its
   * next visit is, or, without a time index, always (every group is visited). A group that keeps
   * an entry under the watermark is left out of [[due]].
   */
  override def claimVisit(group: UnsafeRow, watermark: Long, firstNew: Long): Boolean = {
    check(group)
    active = true
    if (!rows.hasTimeIndex) {
      claimed.add(this.group)
      true
    } else {
      if (watermark != consumedThrough) claimsElsewhere = true
      if (record.indexed != GroupRecord.NoVisit && record.indexed <= watermark) {
        claimed.add(rows.scheduleEntry(record.indexed, group))
        claimedEntry = true
      }
      firstNew <= watermark || stillDue(watermark)
    }
  }
}

private[state] object GroupRecordStore {
  /** A group with at most this many times the Partial rows it just received is swept again. */
  val ResweepRatio = 4
}
