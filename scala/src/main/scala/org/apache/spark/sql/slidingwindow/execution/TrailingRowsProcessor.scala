package org.apache.spark.sql.slidingwindow.execution

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.slidingwindow.state.{PendingRowPerKey, StateArrangement, StateStoreApi, TrailingRowsLayout}

/**
 * One micro-batch of one partition of streaming trailing windows, over the state of format 1
 * ([[TrailingRowsLayout]]):
 *  1. the input rows are kept, each as a state row, but for those at or before the watermark for
 *     late rows (dropped, counted) and those without a time;
 *  2. the groups with rows due are found: rows after the watermark for late rows (which earlier
 *     micro-batches emitted up to) and at or before the watermark for eviction;
 *  3. each such group's rows up to the eviction watermark are read in time order and run through
 *     the trailing windows ([[BaseTrailingWindowExec]]'s algorithm, shared with batch queries):
 *     the rows due are emitted with their windows, the earlier ones are only in them. On RocksDB
 *     one scan of the state does 2 and 3, group after group; on other stores a scan finds the
 *     groups and a prefix scan reads each;
 *  4. once the output is read, rows that no later row's window reaches (at or before the eviction
 *     watermark minus the largest size) are removed.
 * No row comes at or before an emitted time later: it would be late. So a row's window is
 * complete when it is emitted, and a row is emitted exactly once.
 *
 * @param time   the ORDER BY expression, bound to the input rows (microseconds)
 * @param windows the shared algorithm over rows clustered by group, in time order
 */
final class TrailingRowsProcessor(
    store: StateStore,
    layout: TrailingRowsLayout,
    time: Expression,
    batchId: Long,
    lateMicros: Long,
    evictionMicros: Long,
    largestSize: Long,
    windows: TrailingWindowsRun) extends TrailingStateProcessor {

  private val keyOfInput = layout.keyOfInput(time)
  private val toUnsafe = layout.valueOfInput()
  // Spark's operators hand on UnsafeRows; any other row is written as one.
  private def valueOf(row: InternalRow): UnsafeRow = row match {
    case u: UnsafeRow => u
    case other => toUnsafe(other)
  }
  private val groupOfKey = layout.groupOfKey()
  private val family = layout.dataFamily
  /** Rows no later window reaches once this micro-batch's are emitted. */
  private val expiresThrough = if (evictionMicros == Long.MinValue) Long.MinValue
    else evictionMicros - largestSize

  var droppedLateRows = 0L
  var rowsWritten = 0L
  var rowsRemoved = 0L
  var rowsRead = 0L
  private val expired = mutable.ArrayBuffer.empty[UnsafeRow]

  /**
   * Whether a scan of the whole store gives each group's rows one after the other: RocksDB's,
   * whose keys are in byte order with the group's bytes first (the prefix key encoding), which
   * its own prefix scan relies on (it seeks to the prefix and reads while keys start with it).
   * Then one scan reads every group's rows ([[GroupsInOneScan]]); else a scan finds the groups
   * with rows due and a prefix scan reads each.
   */
  private val scansByGroup = store.getClass.getName.startsWith(StateArrangement.rocksDbProvider)
  private var oneScan: GroupsInOneScan = _

  /**
   * The rows this micro-batch emits, with their windows; [[finish]] once they are read. A
   * watermark that did not move (the first micro-batch, one without a later time) makes none due
   * and removes nothing: the state is not read.
   */
  def process(input: Iterator[InternalRow]): Iterator[InternalRow] = {
    keep(input)
    if (evictionMicros <= lateMicros) {
      windows(Iterator.empty, lateMicros)
    } else if (scansByGroup) {
      oneScan = new GroupsInOneScan
      windows(oneScan, lateMicros)
    } else {
      val due = scan()
      windows(due.iterator.flatMap(rowsOf), lateMicros)
    }
  }

  private def keep(input: Iterator[InternalRow]): Unit = {
    val (dropped, written) = PendingRowPerKey.keep(input, store, family, keyOfInput, valueOf,
      layout.timeOrdinal, batchId, lateMicros)
    droppedLateRows += dropped
    rowsWritten += written
  }

  /** The groups with rows due, each once; notes the rows to remove at the end ([[isDue]]). */
  private def scan(): Seq[UnsafeRow] = {
    val due = mutable.LinkedHashSet.empty[UnsafeRow]
    val rows = StateStoreApi.iterator(store, family)
    try rows.foreach { pair =>
      if (isDue(pair.key)) due += groupOfKey(pair.key).copy()
    } finally rows.close()
    due.toSeq
  }

  /**
   * Whether the row of a state key is emitted now (after the late-rows watermark, at or before the
   * eviction watermark); notes it for removal at the end if no later window reaches it.
   */
  private def isDue(key: UnsafeRow): Boolean = {
    val t = key.getLong(layout.timeOrdinal)
    if (t <= expiresThrough) expired += key.copy()
    t > lateMicros && t <= evictionMicros
  }

  private val buffer = new TrailingRowsProcessor.GroupBuffer

  /** A group's rows up to the eviction watermark, in time order (then in the order they came). */
  private def rowsOf(group: UnsafeRow): Iterator[InternalRow] = {
    val rows = StateStoreApi.prefixScan(store, group, family)
    try rows.foreach(pair => add(pair.key, pair.value)) finally rows.close()
    rowsRead += buffer.size
    buffer.sorted()
  }

  private def add(key: UnsafeRow, value: UnsafeRow): Unit = {
    val t = key.getLong(layout.timeOrdinal)
    if (t <= evictionMicros) buffer.add(t, key.getLong(layout.seqOrdinal), value.copy())
  }

  /**
   * The rows of every group with rows due, a group's rows in time order, from one scan of a store
   * that gives each group's rows one after the other ([[scansByGroup]]): a group's rows are held
   * until its last one is read, then run through its windows if any is due. Notes the rows to
   * remove at the end, as [[scan]]. Memory: one group's rows.
   */
  private final class GroupsInOneScan extends Iterator[InternalRow] {
    private val pairs = StateStoreApi.iterator(store, family)
    private var group: UnsafeRow = _
    private var groupDue = false
    private var out: Iterator[InternalRow] = Iterator.empty
    private var open = true

    override def hasNext: Boolean = {
      while (!out.hasNext && open) readGroup()
      out.hasNext
    }

    override def next(): InternalRow = {
      if (!hasNext) throw new NoSuchElementException
      out.next()
    }

    /** Reads until a group's rows are all read (its rows due, if any, in `out`) or the end. */
    private def readGroup(): Unit = {
      var ended = false
      while (!ended) {
        if (!pairs.hasNext) {
          close()
          endGroup()
          return
        }
        val pair = pairs.next()
        val key = groupOfKey(pair.key)
        if (group == null || key != group) {
          ended = endGroup()
          group = key.copy()
        }
        if (isDue(pair.key)) groupDue = true
        add(pair.key, pair.value)
      }
    }

    /** The group read so far is complete: its rows go out if any is due. Whether they do. */
    private def endGroup(): Boolean = {
      val due = groupDue && buffer.size > 0
      groupDue = false
      if (due) {
        rowsRead += buffer.size
        out = buffer.sorted()
      } else {
        buffer.clear()
      }
      due
    }

    def close(): Unit = if (open) {
      open = false
      pairs.close()
    }
  }

  /** Removes the rows no later window reaches: after the output is read, before the commit. */
  def finish(): Unit = {
    if (oneScan != null) oneScan.close()
    expired.foreach(key => StateStoreApi.remove(store, key, family))
    rowsRemoved += expired.length
    expired.clear()
  }
}

object TrailingRowsProcessor {
  /** A group's rows as read (time, seq, value), then in (time, seq) order: primitive arrays, reused. */
  private final class GroupBuffer {
    private var times = new Array[Long](64)
    private var seqs = new Array[Long](64)
    private var values = new Array[UnsafeRow](64)
    var size = 0

    def add(time: Long, seq: Long, value: UnsafeRow): Unit = {
      if (size == times.length) {
        times = java.util.Arrays.copyOf(times, size * 2)
        seqs = java.util.Arrays.copyOf(seqs, size * 2)
        values = java.util.Arrays.copyOf(values, size * 2)
      }
      times(size) = time
      seqs(size) = seq
      values(size) = value
      size += 1
    }

    /** The rows in (time, seq) order; empties the buffer. */
    def sorted(): Iterator[InternalRow] = {
      val order = TrailingRowsProcessor.order(times, seqs, size)
      val rows = new Array[InternalRow](size)
      var i = 0
      while (i < size) {
        rows(i) = values(order(i))
        i += 1
      }
      clear()
      rows.iterator
    }

    def clear(): Unit = {
      java.util.Arrays.fill(values.asInstanceOf[Array[AnyRef]], 0, size, null)
      size = 0
    }
  }

  /**
   * The indices of the first `n` rows in ascending (time, seq) order, without boxing: a merge
   * sort of indices over the primitive arrays (stable, O(n log n)).
   */
  def order(times: Array[Long], seqs: Array[Long], n: Int): Array[Int] = order(null, times, seqs, n)

  /** As [[order]], by (group, time, seq), `groups` first (null: one group). */
  def order(groups: Array[Int], times: Array[Long], seqs: Array[Long], n: Int): Array[Int] = {
    var from = Array.tabulate(n)(identity)
    var to = new Array[Int](n)
    def before(a: Int, b: Int): Boolean =
      if (groups != null && groups(a) != groups(b)) groups(a) < groups(b)
      else times(a) < times(b) || (times(a) == times(b) && seqs(a) < seqs(b))
    var width = 1
    while (width < n) {
      var lo = 0
      while (lo < n) {
        val mid = math.min(lo + width, n)
        val hi = math.min(lo + 2 * width, n)
        var i = lo
        var j = mid
        var k = lo
        while (k < hi) {
          if (i < mid && (j >= hi || !before(from(j), from(i)))) { to(k) = from(i); i += 1 }
          else { to(k) = from(j); j += 1 }
          k += 1
        }
        lo = hi
      }
      val swap = from
      from = to
      to = swap
      width *= 2
    }
    from
  }
}
