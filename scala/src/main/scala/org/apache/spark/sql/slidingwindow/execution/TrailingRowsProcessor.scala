package org.apache.spark.sql.slidingwindow.execution

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, GenericInternalRow, JoinedRow, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.slidingwindow.state.{StateStoreApi, TrailingStateLayout}

/**
 * One micro-batch of one partition of streaming trailing windows, over the state of
 * [[TrailingStateLayout]]:
 *  1. the input rows are kept, each as a state row, but for those at or before the watermark for
 *     late rows (dropped, counted) and those without a time;
 *  2. a scan of the state finds the groups with rows due: after the watermark for late rows
 *     (which earlier micro-batches emitted up to) and at or before the watermark for eviction;
 *  3. each such group's rows up to the eviction watermark are read in time order and run through
 *     the trailing windows ([[BaseTrailingWindowExec]]'s algorithm, shared with batch queries):
 *     the rows due are emitted with their windows, the earlier ones are only in them;
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
    layout: TrailingStateLayout,
    time: Expression,
    batchId: Long,
    lateMicros: Long,
    evictionMicros: Long,
    largestSize: Long,
    windows: (Iterator[InternalRow], Long) => Iterator[InternalRow]) {

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

  /** The rows this micro-batch emits, with their windows; [[finish]] once they are read. */
  def process(input: Iterator[InternalRow]): Iterator[InternalRow] = {
    keep(input)
    val due = scan()
    windows(due.iterator.flatMap(rowsOf), lateMicros)
  }

  private def keep(input: Iterator[InternalRow]): Unit = {
    val seq = new GenericInternalRow(1)
    val withSeq = new JoinedRow
    var index = 0L
    input.foreach { row =>
      seq.setLong(0, (batchId << 32) | (index & 0xffffffffL))
      index += 1
      val key = keyOfInput(withSeq(row, seq))
      if (!key.isNullAt(layout.timeOrdinal)) {
        if (key.getLong(layout.timeOrdinal) <= lateMicros) droppedLateRows += 1
        else {
          StateStoreApi.put(store, key, valueOf(row), family)
          rowsWritten += 1
        }
      }
    }
  }

  /**
   * The groups with rows due, each once; notes the rows to remove at the end. A watermark that
   * did not move (the first micro-batch, one without a later time) makes none due and removes
   * nothing: the state is not read.
   */
  private def scan(): Seq[UnsafeRow] = {
    if (evictionMicros <= lateMicros) return Nil
    val due = mutable.LinkedHashSet.empty[UnsafeRow]
    val rows = StateStoreApi.iterator(store, family)
    try rows.foreach { pair =>
      val t = pair.key.getLong(layout.timeOrdinal)
      if (t > lateMicros && t <= evictionMicros) due += groupOfKey(pair.key).copy()
      if (t <= expiresThrough) expired += pair.key.copy()
    } finally rows.close()
    due.toSeq
  }

  // A group's rows as read, then put in (time, seq) order: primitive arrays, reused per group.
  private var times = new Array[Long](64)
  private var seqs = new Array[Long](64)
  private var values = new Array[UnsafeRow](64)

  /** A group's rows up to the eviction watermark, in time order (then in the order they came). */
  private def rowsOf(group: UnsafeRow): Iterator[InternalRow] = {
    var n = 0
    val rows = StateStoreApi.prefixScan(store, group, family)
    try rows.foreach { pair =>
      val t = pair.key.getLong(layout.timeOrdinal)
      if (t <= evictionMicros) {
        if (n == times.length) grow()
        times(n) = t
        seqs(n) = pair.key.getLong(layout.seqOrdinal)
        values(n) = pair.value.copy()
        n += 1
      }
    } finally rows.close()
    rowsRead += n
    val order = TrailingRowsProcessor.order(times, seqs, n)
    val sorted = new Array[UnsafeRow](n)
    var i = 0
    while (i < n) {
      sorted(i) = values(order(i))
      values(order(i)) = null
      i += 1
    }
    sorted.iterator
  }

  private def grow(): Unit = {
    times = java.util.Arrays.copyOf(times, times.length * 2)
    seqs = java.util.Arrays.copyOf(seqs, seqs.length * 2)
    values = java.util.Arrays.copyOf(values, values.length * 2)
  }

  /** Removes the rows no later window reaches: after the output is read, before the commit. */
  def finish(): Unit = {
    expired.foreach(key => StateStoreApi.remove(store, key, family))
    rowsRemoved += expired.length
    expired.clear()
  }
}

object TrailingRowsProcessor {
  /**
   * The indices of the first `n` rows in ascending (time, seq) order, without boxing: a merge
   * sort of indices over the primitive arrays (stable, O(n log n)).
   */
  def order(times: Array[Long], seqs: Array[Long], n: Int): Array[Int] = {
    var from = Array.tabulate(n)(identity)
    var to = new Array[Int](n)
    def before(a: Int, b: Int): Boolean =
      times(a) < times(b) || (times(a) == times(b) && seqs(a) < seqs(b))
    var width = 1
    while (width < n) {
      var lo = 0
      while (lo < n) {
        val mid = math.min(lo + width, n)
        val hi = math.min(lo + 2 * width, n)
        var (i, j, k) = (lo, mid, lo)
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
