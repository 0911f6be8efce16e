package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * Visit timers in the time index ([[TimeIndex]]: a `time_index` column family of entries (time,
 * group), ordered by time, RocksDB on Spark 4), so that a micro-batch reads the entries due and no
 * others.
 */
private[state] final class TimeIndexTimers(store: StateStore, layout: WindowStateLayout,
    counters: StateCounters, watermark: Option[Long])
  extends EntryTimers(watermark) {

  private val index = new TimeIndex(store, layout.indexKeySchema, counters, layout.indexFamily)

  override def hasTimeIndex: Boolean = true

  override def schedule(time: Long, group: InternalRow): Unit = index.put(time, group)

  override def unschedule(time: Long, group: InternalRow): Unit = index.remove(time, group)

  /**
   * The head of the index, read with one iterator as the groups are pulled: each entry at or
   * below the watermark is removed as it is read, as Spark's StateStoreSaveExec removes the rows
   * it evicts while it iterates. Schedules that visits write are later than the watermark, past
   * the entries read. A group can have several entries due; only the groups visited are
   * remembered (one key per group, no entry), to visit each once.
   */
  override protected def dueThrough(watermark: Long): Iterator[UnsafeRow] = {
    val visited = new GroupSet
    new IndexHead(watermark, consume = true, except = null, counted = true).filter(visited.add)
  }

  override def scheduledThrough(watermark: Long, except: GroupSet, counted: Boolean): Iterator[UnsafeRow] =
    new IndexHead(watermark, consume = false, except, counted)

  /** The time of the first entry of the index: one seek. */
  override def nextDue: Long = index.first

  override def countEntries(): Long = index.count()

  override def entryOf(time: Long, group: InternalRow): UnsafeRow = index.key(time, group).copy()

  /**
   * The groups of the index's entries at or below `watermark`, removed as read if `consume`, but
   * the entries in `except` (compared as read: neither copied nor turned into a group).
   */
  private final class IndexHead(watermark: Long, consume: Boolean, except: GroupSet, counted: Boolean)
    extends Iterator[UnsafeRow] {
    private var entries = index.entries()
    private var nextGroup: UnsafeRow = _

    override def hasNext: Boolean = {
      while (nextGroup == null && entries != null) {
        val key = if (entries.hasNext) entries.next().key else null
        if (key == null || index.timeOf(key) > watermark) {
          entries.close()
          entries = null
        } else {
          if (counted) counters.read += 1
          if (except == null || !except.contains(key)) {
            nextGroup = index.groupOfKey(key).copy()
            if (consume) index.removeKey(key)
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
}
