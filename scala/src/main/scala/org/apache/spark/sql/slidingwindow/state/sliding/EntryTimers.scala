package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * Visit timers kept as entries (time, group) of their own: state format 1's timers, and the time
 * index under state format 2's ([[RecordVisitTimers]]). Two implementations: [[TimeIndexTimers]]
 * (a `time_index` column family, RocksDB on Spark 4) and [[EveryGroupTimers]] (no index: every
 * group is due in every micro-batch with a watermark).
 *
 * @param watermark the micro-batch's eviction watermark: visits due at or below it are made by it
 */
private[state] abstract class EntryTimers(watermark: Option[Long]) extends VisitTimers {
  /** Whether the groups due are found through a time index (else [[due]] returns every group). */
  def hasTimeIndex: Boolean

  override final def due(): Iterator[UnsafeRow] = watermark.map(dueThrough).getOrElse(Iterator.empty)

  /** The groups due under `watermark`, each once; their entries are consumed as they are read. */
  protected def dueThrough(watermark: Long): Iterator[UnsafeRow]

  override def stillDue: Boolean = true
  override def claimVisit(group: UnsafeRow, firstNew: Long): Boolean = false

  /**
   * With a time index, the groups of its entries at or below `watermark`, read as they are
   * pulled, one per entry, without consuming them (state format 2 moves a group's one entry
   * itself), but the entries in `except` ([[entryOf]]); the entries read are counted as state
   * rows read if `counted`. Without one, every group, but the groups in `except`.
   */
  def scheduledThrough(watermark: Long, except: GroupSet, counted: Boolean): Iterator[UnsafeRow] =
    dueThrough(watermark).filterNot(except.contains)

  /** The number of entries of the time index, read all (without one: 0). */
  def countEntries(): Long = 0L

  /**
   * What [[scheduledThrough]] compares with `except`, of `group` scheduled at `time` (a copy): its
   * entry in the time index (so that an entry passed over is never turned into a group), or
   * without one, the group.
   */
  def entryOf(time: Long, group: InternalRow): UnsafeRow = group.asInstanceOf[UnsafeRow].copy()
}
