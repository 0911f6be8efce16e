package org.apache.spark.sql.slidingwindow.execution

import java.util.{HashMap => JHashMap}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.slidingwindow.state.{TrailingFramesState, TrailingStateLayout, TrailingSummary, WaitingTimes}

/**
 * One micro-batch of one partition of streaming trailing windows, over their state
 * ([[TrailingStateLayout]]):
 *  1. the input rows are kept in Pending rows ([[PendingParts]]: a part per group and second), but
 *     for those at or before the watermark for late rows (dropped, counted) and those without a
 *     time;
 *  2. the Pending rows at or before the eviction watermark are due: a prefix scan of each bucket
 *     between the two watermarks reads them;
 *  3. each group with rows due resumes its frames where its last micro-batch left them
 *     ([[TrailingFramesState]]), its rows due go through them in time order (the algorithm of
 *     batch queries, [[TrailingWindowsRun]]), each emitted with its windows, and its frames are
 *     stored again;
 *  4. once the output is read, the rows emitted are removed, and so are the groups whose frames
 *     no later row reaches ([[TrailingFramesState.sweep]]); the Summary row counts the store's
 *     rows and bounds the times of the rows left waiting ([[TrailingSummary]], [[WaitingTimes]]),
 *     where it has any: the earliest is when a row is next due ([[nextDue]]).
 * No row comes at or before an emitted time later: it would be late. So a row's windows are
 * complete when it is emitted, a row is emitted exactly once, and a group's frames only ever
 * receive times after those they hold. A micro-batch reads the rows waiting for the watermark and
 * a few rows per group it emits, not the rows its frames hold.
 *
 * @param time    the ORDER BY expression, bound to the input rows (microseconds)
 * @param lags    how far back each frame ends, frames in the operator's order
 * @param chunkElements the elements of a chunk of the frames' stacks ([[TrailingFramesState]])
 * @param partBytes the bytes of rows a task holds in Pending parts before it writes them
 * @param windows the shared algorithm over rows clustered by group, in time order
 * @param sparkEvictionMicros Spark's own eviction watermark, where the operator keeps an idle
 *                clock: rows emitted past it are counted in [[rowsClosedWhileIdle]]
 */
final class TrailingFramesProcessor(
    store: StateStore,
    layout: TrailingStateLayout,
    time: Expression,
    batchId: Long,
    lateMicros: Long,
    evictionMicros: Long,
    largestSize: Long,
    lags: Array[Long],
    chunkElements: Int,
    partBytes: Long,
    windows: TrailingWindowsRun,
    sparkEvictionMicros: Option[Long] = None) {

  private val pending = layout.pendingRows(store, lateMicros, evictionMicros, partBytes)
  private val summary = new TrailingSummary(store, layout)
  private var frames: TrailingFramesState = _

  private def ofFrames(f: TrailingFramesState => Long): Long = if (frames == null) 0L else f(frames)
  private var summaryWritten = false
  def droppedLateRows: Long = pending.droppedLateRows
  def rowsWritten: Long = pending.rowsWritten + ofFrames(_.rowsWritten) + (if (summaryWritten) 1 else 0)
  def rowsRemoved: Long = pending.rowsRemoved + ofFrames(_.rowsRemoved)
  def rowsRead: Long = pending.rowsRead + ofFrames(_.rowsRead) + summary.rowsRead
  /** The store's rows, as the operator counts them, once [[finish]]ed. */
  def rowCount: Long = summary.rowCount
  /** The rows emitted that Spark's own eviction watermark kept waiting (the idle clock's). */
  var rowsClosedWhileIdle = 0L
  private val closedWhileIdleAfter = sparkEvictionMicros.getOrElse(Long.MaxValue)

  /**
   * When a row is next due, once [[finish]]ed: the earliest time a row waits for, or earlier
   * (Long.MaxValue: none waits).
   */
  def nextDue: Long = summary.waiting.map(_.earliest).getOrElse(Long.MinValue)

  /**
   * The rows this micro-batch emits, with their windows; [[finish]] once they are read. A
   * watermark that did not move (the first micro-batch, one without a later time) makes none due
   * and removes nothing: the state is not read, but for a Summary row that does not bound the
   * rows waiting (written before it did): every Pending row is read then.
   */
  def process(input: Iterator[InternalRow]): Iterator[InternalRow] = {
    pending.keep(input, time, batchId)
    val readAll = summary.waiting.isEmpty
    if (evictionMicros <= lateMicros) {
      if (readAll) pending.readDue(all = true)((_, _, _, _) => ())
      Iterator.empty
    } else windows.withQueues(due(readAll), buffers => {
      frames = new TrailingFramesState(store, layout, summary, buffers, lags, largestSize, chunkElements)
      frames
    })
  }

  /** The Pending rows due, group after group, each group's in (time, seq) order. */
  private def due(readAll: Boolean): Iterator[InternalRow] = {
    val groupOf = layout.groupOfKey()
    val groups = new JHashMap[UnsafeRow, Integer]
    var groupIds = new Array[Int](64)
    var times = new Array[Long](64)
    var seqs = new Array[Long](64)
    var values = new Array[InternalRow](64)
    var n = 0
    pending.readDue(readAll) { (key: UnsafeRow, t: Long, seq: Long, row: InternalRow) =>
      if (n == times.length) {
        groupIds = java.util.Arrays.copyOf(groupIds, 2 * n)
        times = java.util.Arrays.copyOf(times, 2 * n)
        seqs = java.util.Arrays.copyOf(seqs, 2 * n)
        values = java.util.Arrays.copyOf(values, 2 * n)
      }
      val g = groupOf(key)
      var id = groups.get(g)
      if (id == null) {
        id = groups.size
        groups.put(g.copy(), id)
      }
      groupIds(n) = id
      times(n) = t
      seqs(n) = seq
      values(n) = row
      n += 1
      if (t > closedWhileIdleAfter) rowsClosedWhileIdle += 1
    }
    val order = TrailingFramesProcessor.order(groupIds, times, seqs, n)
    Iterator.tabulate(n)(i => values(order(i)))
  }

  /**
   * Stores the last group's frames, removes the rows emitted and the groups no row reaches, and
   * writes the Summary row.
   */
  def finish(): Unit = {
    if (frames != null) {
      frames.close()
      frames.sweep(evictionMicros)
    }
    pending.finish()
    summary.waiting = pending.waitingRead.union(
      summary.waiting.getOrElse(WaitingTimes.none).notRead(evictionMicros, pending.notReadFrom))
    summary.created += pending.rowsCreated
    summary.removed += pending.rowsRemoved
    summaryWritten = summary.save()
  }
}

object TrailingFramesProcessor {
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
