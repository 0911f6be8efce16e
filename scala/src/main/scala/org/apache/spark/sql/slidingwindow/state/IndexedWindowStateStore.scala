package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * RocksDB: the time index column family, and range scans within a group where its rows are kept
 * ordered (`orderedRows`, Spark 4.2 and later; before, prefix scans).
 */
private[state] final class IndexedWindowStateStore(store: StateStore, layout: WindowStateLayout,
    orderedRows: Boolean) extends WindowStateStore(store, layout) {
  StateStoreApi.createFamily(store, layout.indexFamily, layout.indexKeySchema,
    layout.indexValueSchema, layout.indexEncoding)
  if (layout.hasGroupRecords) {
    StateStoreApi.createFamily(store, layout.chunkFamily, layout.keySchema, layout.valueSchema,
      layout.keyEncoding(ordered = false))
  }

  override def chunkFamily: String = if (layout.hasGroupRecords) layout.chunkFamily else layout.dataFamily

  private val nothing = {
    val row = new UnsafeRow(1)
    row.pointTo(new Array[Byte](16), 16)
    row.setNullAt(0)
    row
  }

  override def hasTimeIndex: Boolean = true

  override def rows(group: InternalRow, kind: StateRowKind, from: Long, to: Long): RowCursor =
    if (!orderedRows) scanRows(group, kind, from, to)
    else {
      // Range scans are end-exclusive; no time is Long.MaxValue (window bounds must fit).
      val start = codec.key(group, kind, from).copy()
      val end = codec.key(group, kind, if (to == Long.MaxValue) to else to + 1).copy()
      new PairCursor(OrderedRangeScan.scan(store, start, end, layout.dataFamily), from, to)
    }

  override def schedule(time: Long, group: InternalRow): Unit = {
    StateStoreApi.put(store, codec.indexKey(time, group), nothing, layout.indexFamily)
    writes += 1
    creates += 1
  }

  override def unschedule(time: Long, group: InternalRow): Unit = {
    StateStoreApi.remove(store, codec.indexKey(time, group), layout.indexFamily)
    removes += 1
  }

  /**
   * The head of the index, read with one iterator as the groups are pulled: each entry at or
   * below the watermark is removed as it is read, as Spark's StateStoreSaveExec removes the
   * rows it evicts while it iterates. Schedules that visits write are later than the
   * watermark, past the entries read. A group can have several entries due; only the groups
   * visited are remembered (one key per group, no entry), to visit each once.
   */
  override def due(watermark: Long): Iterator[UnsafeRow] = {
    val visited = new GroupSet
    new IndexHead(watermark, consume = true).filter(visited.add)
  }

  override private[state] def scheduledThrough(watermark: Long, except: GroupSet): Iterator[UnsafeRow] =
    new IndexHead(watermark, consume = false, except)

  override private[state] def indexEntries(): Long = {
    val entries = StateStoreApi.iterator(store, layout.indexFamily)
    var n = 0L
    try while (entries.hasNext) { entries.next(); n += 1 } finally entries.close()
    n
  }

  override private[state] def scheduleEntry(time: Long, group: InternalRow): UnsafeRow = codec.indexKey(time, group).copy()

  /**
   * The groups of the index's entries at or below `watermark`, removed as read if `consume`, but
   * the entries in `except` (compared as read: neither copied nor turned into a group).
   */
  private final class IndexHead(watermark: Long, consume: Boolean, except: GroupSet = null)
    extends Iterator[UnsafeRow] {
    private var entries = StateStoreApi.iterator(store, layout.indexFamily)
    private var nextGroup: UnsafeRow = _

    override def hasNext: Boolean = {
      while (nextGroup == null && entries != null) {
        val key = if (entries.hasNext) entries.next().key else null
        if (key == null || codec.timeOfIndex(key) > watermark) {
          entries.close()
          entries = null
        } else {
          reads += 1
          if (except == null || !except.contains(key)) {
            nextGroup = codec.groupOfIndex(key).copy()
            if (consume) {
              StateStoreApi.remove(store, key, layout.indexFamily)
              removes += 1
            }
          }
        }
      }
      nextGroup != null
    }

    override def next(): UnsafeRow = {
      if (!hasNext) throw new NoSuchElementException
      val group = nextGroup
      nextGroup = null
      group
    }
  }

  /** The rows of a range scan within `from <= time <= to`, counted as they are read. */
  private final class PairCursor(iter: StateStoreRows, from: Long, to: Long)
    extends RowCursor {
    override def next(): Boolean = {
      while (iter.hasNext) {
        val pair = iter.next()
        val t = codec.timeOfKey(pair.key)
        if (t >= from && t <= to) {
          reads += 1
          set(t, pair.value)
          return true
        }
      }
      false
    }
    override def close(): Unit = iter.close()
  }
}
