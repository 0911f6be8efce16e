package org.apache.spark.sql.slidingwindow.state
package sliding

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.unsafe.Platform

/**
 * State format 2, append mode: the chunks of a large group's record, the rows its visits do not
 * touch, kept out of the record ([[GroupRecord.chunks]]). A visit touches the oldest and newest
 * rows of its queue (the right windows of the oldest times, the rows that expire, the suffixes it
 * pops; the rows it adds): those stay in the record, at most `hotRows` at each end (plus up to
 * `chunkRows` more before they move out, so that rows move out a chunk at a time), and the rows
 * between them are in chunks of at most `chunkRows`, each a row of its own ([[ChunkStore]]),
 * keyed by its first time and listed in the record.
 *
 * A read or write of a time a chunk holds loads the chunk into the record ([[load]], [[cursor]]),
 * and its row is deleted when the group is closed ([[removeLoaded]]), unless written again under
 * the same key; [[spill]] moves rows out again. So a visit reads and writes its record, whatever
 * the window holds, and a chunk about every `chunkRows` rows that it adds, expires or pops.
 *
 * One instance per task, [[open]]ed for each group with its record.
 */
private[state] final class RecordChunks(
    store: ChunkStore,
    codec: WindowStateCodec,
    counters: StateCounters,
    limits: RecordLimits,
    numBufferFields: Int) {
  import limits.chunkRows

  private var group: UnsafeRow = _
  private var record: GroupRecord = _
  private val loadedChunks = mutable.HashSet.empty[(StateRowKind, Long)]
  private val writtenChunks = mutable.HashSet.empty[(StateRowKind, Long)]
  // Changes of the chunk lists since the group was opened (the cursors' cached lookups).
  private var chunkChanges = 0L

  /** Starts the work on a group, whose record (loaded) is `record`. */
  def open(group: UnsafeRow, record: GroupRecord): Unit = {
    this.group = group
    this.record = record
    if (loadedChunks.nonEmpty) loadedChunks.clear()
    if (writtenChunks.nonEmpty) writtenChunks.clear()
  }

  /** Whether a chunk was loaded into the record since the group was opened: the record changed. */
  def loadedAny: Boolean = loadedChunks.nonEmpty

  /** Loads the chunks of `kind` that hold times in [from, to]. */
  def load(kind: StateRowKind, from: Long, to: Long): Unit = {
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

  private def loadChunk(kind: StateRowKind, first: Long): Unit = {
    record.chunks(kind).remove(first)
    chunkChanges += 1
    val value = store.get(group, kind.id, first)
    assert(value != null, s"the $kind chunk at $first of a group is missing")
    counters.read += 1
    record.loadChunk(kind, value, codec) // its rows are copied out of it
    loadedChunks += ((kind, first))
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
  def spill(kind: StateRowKind, head: Int, tail: Int): Unit = {
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
      store.put(group, kind.id, first, codec.recordValue(null, record.chunkContents(entries, from, i)))
      counters.written += 1
      if (!loadedChunks.contains((kind, first))) counters.created += 1 // else it replaces the chunk loaded
      writtenChunks += ((kind, first))
      chunks.put(first, Chunk(first, entries.timeAt(i - 1), i - from))
      chunkChanges += 1
      entries.removeRange(from, i)
      end -= i - from
    }
  }

  /** Deletes the rows of the chunks loaded, but those written again under the same key. */
  def removeLoaded(): Unit = if (loadedChunks.nonEmpty) {
    loadedChunks.foreach { case (kind, first) =>
      if (!writtenChunks.contains((kind, first))) {
        store.remove(group, kind.id, first)
        counters.removed += 1
      }
    }
    loadedChunks.clear()
    writtenChunks.clear()
  }

  /**
   * The rows of `kind` with `from <= time <= to` of a record that holds its group's rows, in the
   * record and in its chunks: chunks are loaded as the cursor reaches them (the one holding
   * `from`, if any, at the first row); rows may be written while it is open.
   */
  def cursor(kind: StateRowKind, from: Long, to: Long): RowCursor =
    if (from > to) RowCursor.of(Iterator.empty) else new ChunkedCursor(kind, from, to)

  private final class ChunkedCursor(kind: StateRowKind, from: Long, to: Long) extends RowCursor {
    private val entries = record.entries(kind)
    private val chunks = record.chunks(kind)
    private var started = false
    private var at = 0L // the last time returned
    private var atIndex = 0 // its position when it was returned
    private def stillAtIndex = atIndex < entries.size && entries.timeAt(atIndex) == at

    // Rows may have been written in between: the position of the last row returned is checked,
    // and searched again only if it moved; the next chunk is looked up again only if a chunk was
    // loaded or moved out since.
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

    // Read only if asked for: a row kept as words becomes a value then (most cursors of a visit
    // read times only).
    override def value: UnsafeRow =
      if (stillAtIndex) entries.valueAt(atIndex) else entries.get(at)

    // The buffer of a row kept as words is read from a copy of them, without making its value (a
    // sweep reads the buffer of each partial near the new rows, and pushes it).
    private var bufferWords: Array[Long] = _
    private var bufferView: UnsafeRow = _
    override def buffer(codec: WindowStateCodec): UnsafeRow =
      if (!stillAtIndex || !entries.keptAsWords(atIndex)) codec.buffer(value)
      else {
        val n = entries.wordsPerRow
        if (bufferWords == null || bufferWords.length != n) {
          bufferWords = new Array[Long](n)
          bufferView = new UnsafeRow(numBufferFields)
        }
        entries.copyWords(atIndex, bufferWords)
        bufferView.pointTo(bufferWords, Platform.LONG_ARRAY_OFFSET, 8 * n)
        bufferView
      }
  }
}

private[state] object RecordChunks {
  /**
   * The chunks in the state store, in `family` (`chunks` with a time index, else the default): a
   * row each, keyed (group, the chunk kind of the series' row kind, first time), whose value's
   * `__record` holds a section of rows.
   */
  def store(store: StateStore, codec: WindowStateCodec, family: String): ChunkStore = new ChunkStore {
    private def key(group: InternalRow, series: Int, first: Long): UnsafeRow =
      codec.key(group, StateRowKind.chunkOf(StateRowKind.of(series)), first)
    override def get(group: InternalRow, series: Int, first: Long): UnsafeRow =
      StateStoreApi.get(store, key(group, series, first), family)
    override def put(group: InternalRow, series: Int, first: Long, value: UnsafeRow): Unit =
      StateStoreApi.put(store, key(group, series, first), value, family)
    override def remove(group: InternalRow, series: Int, first: Long): Unit =
      StateStoreApi.remove(store, key(group, series, first), family)
  }
}
