package org.apache.spark.sql.slidingwindow.state

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.{RocksDBStateStoreProvider, StateStore}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.state.StateRowKind.{Partial, Suffix}

/**
 * A partition's state store as a streaming windowed aggregation uses it ([[WindowStateLayout]]):
 * a group's rows by kind and time, and when each group must be visited again.
 *
 * Reads and writes are counted ([[rowsRead]], [[rowsWritten]]): a micro-batch's state work is in
 * proportion to its input and output, not to the state it keeps, and these counts show it.
 *
 * A caller works on one group at a time, between [[open]] and [[close]]: state format 2 keeps a
 * group's rows in one record ([[GroupRecordStore]]), read by `open` and written by `close`.
 *
 * Two implementations of the rows: [[IndexedWindowStateStore]] (RocksDB) and
 * [[ScanningWindowStateStore]]; state format 2 adds [[GroupRecordStore]] over either.
 */
abstract class WindowStateStore private[state] (val store: StateStore, val layout: WindowStateLayout) {
  val codec: WindowStateCodec = layout.codec()

  protected var reads = 0L
  protected var writes = 0L
  protected var removes = 0L
  protected var creates = 0L
  def rowsRead: Long = reads
  def rowsWritten: Long = writes
  def rowsRemoved: Long = removes
  /**
   * The rows written that did not exist before ([[insert]], [[schedule]] in state format 2, which
   * keeps one index entry per group): with [[rowsRemoved]], every removal being of a row that
   * exists, how the number of state rows changed ([[rowCount]]).
   */
  def rowsCreated: Long = creates

  /** State format 2: the group records read from the executor's memory ([[RecordCache]]), not the store. */
  def recordsFromCache: Long = 0L

  /**
   * The state rows of the partition once this micro-batch's changes are in, where the operator
   * counts them itself (state format 2 with a time index: [[StoredRowCount]]); None where the
   * provider does.
   */
  def rowCount: Option[Long] = None

  /**
   * Stores what the operator keeps beside the rows, if anything ([[rowCount]], and the token of
   * the commit: [[RecordCache]]): call once, before the store commits.
   */
  def prepareCommit(): Unit = ()

  /** Once the store committed: hands on what outlives the micro-batch (the [[RecordCache]]). */
  def committed(): Unit = ()

  /** State format 2: the column family of the chunks of large groups' rows. */
  def chunkFamily: String = layout.dataFamily

  /** State format 2: groups whose rows moved out of their record, and back into it. */
  def groupsMovedToRows: Long = 0L
  def groupsMovedToRecords: Long = 0L

  /** Starts the work on a group: every call until [[close]] is about this group. */
  def open(group: UnsafeRow): Unit = ()

  /** Ends the work on the group [[open]]ed: what changed is stored. */
  def close(): Unit = ()

  /**
   * Whether the group [[open]] now is small enough that a visit sweeps all its Partial rows again
   * in memory, rather than resuming the queue kept in its state (state format 2: its record holds
   * them, at most [[RecordLimits.resweepRows]] of them). Such a group keeps no queue.
   */
  def resweepable: Boolean = false

  /**
   * Whether a group's Partial rows stay in the state once its queue's front holds them, until they
   * expire (state format 1: the right windows of the times pushed are read from them). State format
   * 2 removes them when a flip moves them into the front, whose Suffix rows carry their times
   * ([[pushedTimes]]): each time pushed is then one row, a partial in the back or a suffix in the
   * front, a third fewer rows for a group with a queue.
   */
  def frontKeepsPartials: Boolean = true

  /**
   * The times of a group pushed into its queue, up to `through` (its last time pushed), that the
   * state still has, ascending: its Partial rows up to `through`, and where the front does not
   * keep them ([[frontKeepsPartials]]), after the times of its Suffix rows, which are older. Only
   * times are read ([[RowCursor.time]]).
   */
  def pushedTimes(group: InternalRow, through: Long): RowCursor =
    if (frontKeepsPartials) rows(group, Partial, Long.MinValue, through)
    else new FollowedTimes(rows(group, Suffix, Long.MinValue, through), rows(group, Partial, Long.MinValue, through))

  /** Whether every group's rows are found through a time index (else `due` returns every group). */
  def hasTimeIndex: Boolean

  /** The value of a row, or null. Valid until the next read. */
  def get(group: InternalRow, kind: StateRowKind, time: Long): UnsafeRow = {
    val value = StateStoreApi.get(store, codec.key(group, kind, time), layout.dataFamily)
    if (value != null) reads += 1
    value
  }

  /** Writes a row, new or not. */
  def put(group: InternalRow, kind: StateRowKind, time: Long, value: UnsafeRow): Unit = {
    StateStoreApi.put(store, codec.key(group, kind, time), value, layout.dataFamily)
    writes += 1
  }

  /** Writes a row the group does not have yet ([[put]], where the caller knows it is new). */
  def insert(group: InternalRow, kind: StateRowKind, time: Long, value: UnsafeRow): Unit = {
    put(group, kind, time, value)
    creates += 1
  }

  /** Removes a row the group has. */
  def remove(group: InternalRow, kind: StateRowKind, time: Long): Unit = {
    StateStoreApi.remove(store, codec.key(group, kind, time), layout.dataFamily)
    removes += 1
  }

  /** A group's rows of `kind` with `from <= time <= to`, in ascending time. */
  def rows(group: InternalRow, kind: StateRowKind, from: Long, to: Long): RowCursor

  /** [[rows]] without ordered scans: every row of the group and kind is read, and sorted. */
  protected final def scanRows(group: InternalRow, kind: StateRowKind, from: Long, to: Long): RowCursor = {
    val found = mutable.ArrayBuffer.empty[(Long, UnsafeRow)]
    val iter = StateStoreApi.prefixScan(store, codec.prefix(group, kind), layout.dataFamily)
    try iter.foreach { pair =>
      val t = codec.timeOfKey(pair.key)
      if (t >= from && t <= to) found += ((t, pair.value.copy()))
    } finally iter.close()
    reads += found.length
    RowCursor.of(found.sortBy(_._1).iterator)
  }

  /** The group must be visited once the watermark reaches `time`. */
  def schedule(time: Long, group: InternalRow): Unit

  /** Takes back a [[schedule]] that is no longer needed. */
  def unschedule(time: Long, group: InternalRow): Unit

  /**
   * The groups to visit under `watermark`, each once, read as they are pulled. State format 1
   * consumes their schedule entries (a visit may schedule the group again, always later than
   * `watermark`); state format 2 leaves its entries to [[close]], leaves out the groups
   * [[claimVisit]]ed, and may return a group whose visit is not due yet ([[stillDue]]).
   */
  def due(watermark: Long): Iterator[UnsafeRow]

  /**
   * With a time index, the groups of its entries at or below `watermark`, read as they are
   * pulled, one per entry, without consuming them (state format 2 moves a group's one entry
   * itself), but the entries in `except` ([[scheduleEntry]]). Without one, as [[due]], but the
   * groups in `except`.
   */
  private[state] def scheduledThrough(watermark: Long, except: GroupSet): Iterator[UnsafeRow] =
    due(watermark).filterNot(except.contains)

  /** The number of entries of the time index, read all (without one: 0). */
  private[state] def indexEntries(): Long = 0L

  /**
   * What [[scheduledThrough]] compares with `except`, of `group` scheduled at `time` (a copy):
   * its entry in the time index (so that an entry passed over is never turned into a group), or
   * without one, the group.
   */
  private[state] def scheduleEntry(time: Long, group: InternalRow): UnsafeRow = group.asInstanceOf[UnsafeRow].copy()

  /**
   * Whether the group [[open]] now, returned by [[due]], has a visit due under `watermark`
   * (state format 2: its entry in the time index may be earlier than its next visit).
   */
  def stillDue(watermark: Long): Boolean = true

  /**
   * Whether the group [[open]] now, whose new rows start at `firstNew`, is due under
   * `watermark`, as far as this store knows without reading its time index; if so, the caller
   * visits it now and [[due]] leaves it out. State format 1 does not know (false): its groups
   * are found by [[due]].
   */
  def claimVisit(group: UnsafeRow, watermark: Long, firstNew: Long): Boolean = false
}

object WindowStateStore {
  val rocksDbProvider: String = classOf[RocksDBStateStoreProvider].getName

  /**
   * Whether the operator counts its state rows itself ([[rowCount]]: state format 2 with a time
   * index), so that its stores need not: Spark's RocksDB provider reads every key before it
   * writes or deletes it to count them (`trackTotalNumberOfRows`).
   */
  def countsOwnRows(layout: WindowStateLayout, hasTimeIndex: Boolean): Boolean =
    layout.hasGroupRecords && hasTimeIndex

  /**
   * Internal, for tests: the provider counts the rows too, and every micro-batch checks that the
   * operator's count ([[rowCount]]) agrees with it.
   */
  val verifyRowCountKey = "spark.sql.slidingWindow.state.verifyRowCount"

  /**
   * Whether the state has a time index: RocksDB keeps a time-ordered index in a column family
   * (Spark 4; Spark 3.5 has no column families); other providers scan.
   */
  def hasTimeIndex(conf: SQLConf): Boolean =
    conf.getConf(SQLConf.STATE_STORE_PROVIDER_CLASS) == rocksDbProvider && StateStoreApi.hasColumnFamilies

  /**
   * Whether a group's rows are kept ordered by time, for range scans: with a time index, on a
   * Spark that has ordered range scans (4.2 and later).
   */
  def hasOrderedRows(conf: SQLConf): Boolean = hasTimeIndex(conf) && OrderedRangeScan.supported

  /**
   * The store of one micro-batch of one partition, whose eviction watermark is `watermark` (its
   * [[due]] groups are visited in it). State format 2 arranges a group's rows by `limits`, and
   * with a time index keeps their records in memory between micro-batches, in up to
   * `recordCacheBytes` ([[RecordCache.maxBytes]]). With `verifyCounts` (the tests,
   * [[verifyRowCountKey]]), each commit of state format 2 checks what it counts of its time index.
   */
  def apply(store: StateStore, layout: WindowStateLayout, hasTimeIndex: Boolean, orderedRows: Boolean,
      watermark: Option[Long], limits: RecordLimits, recordCacheBytes: Long,
      verifyCounts: Boolean = false): WindowStateStore = {
    val rows =
      if (hasTimeIndex) new IndexedWindowStateStore(store, layout, orderedRows)
      else new ScanningWindowStateStore(store, layout)
    if (layout.hasGroupRecords) new GroupRecordStore(rows, watermark, limits, recordCacheBytes, verifyCounts)
    else rows
  }
}
