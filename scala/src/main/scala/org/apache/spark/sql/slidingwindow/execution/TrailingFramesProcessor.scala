package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.slidingwindow.state.{TrailingFramesState, TrailingStateLayout, TrailingSummary}

/**
 * One micro-batch of one partition of streaming trailing windows, over their state
 * ([[TrailingStateLayout]]):
 *  1. the input rows are kept in Pending rows ([[PendingParts]]: a part per group and second), but
 *     for those at or before the watermark for late rows (dropped, counted) and those without a
 *     time;
 *  2. the Pending rows at or before the eviction watermark are due: a prefix scan of each bucket
 *     between the two watermarks reads them, a few buckets at a time ([[TrailingDueSteps]]);
 *  3. in each step, each group with rows due resumes its frames where they were left (by its last
 *     micro-batch or step, [[TrailingFramesState]]), its rows due go through them in time order
 *     (the algorithm of batch queries, [[TrailingWindowsRun]]), each emitted with its windows, and
 *     its frames are stored again; once a step's rows are read, its parts are removed;
 *  4. once the output is read, the groups whose frames no later row reaches are removed
 *     ([[TrailingFramesState.sweep]]); the Summary row counts the store's rows
 *     ([[TrailingSummary]]), where it has any.
 * No row comes at or before an emitted time later: it would be late. So a row's windows are
 * complete when it is emitted, a row is emitted exactly once, and a group's frames only ever
 * receive times after those they hold. A micro-batch reads the rows waiting for the watermark and
 * a few rows per group it emits, not the rows its frames hold.
 *
 * @param time    the ORDER BY expression, bound to the input rows (microseconds)
 * @param lags    how far back each frame ends, frames in the operator's order
 * @param chunkElements the elements of a chunk of the frames' stacks ([[TrailingFramesState]])
 * @param partBytes the bytes of rows a task holds in Pending parts before it writes them
 * @param stepBytes the bytes of Pending parts a step of the rows due reads (at least a bucket's)
 * @param windows the shared algorithm over rows clustered by group, in time order
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
    stepBytes: Long,
    windows: TrailingWindowsRun) {

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

  /**
   * The rows this micro-batch emits, with their windows; [[finish]] once they are read. A
   * watermark that did not move (the first micro-batch, one without a later time) makes none due
   * and removes nothing: the state is not read.
   */
  def process(input: Iterator[InternalRow]): Iterator[InternalRow] = {
    pending.keep(input, time, batchId)
    if (evictionMicros <= lateMicros) Iterator.empty
    else windows.withQueues(due(), buffers => {
      frames = new TrailingFramesState(store, layout, summary, buffers, lags, largestSize, chunkElements)
      frames
    })
  }

  /**
   * The Pending rows due, in steps of a few buckets ([[TrailingDueSteps]]), each step's group
   * after group, each group's in (time, seq) order.
   */
  private def due(): Iterator[InternalRow] = new TrailingDueSteps(pending, layout.groupOfKey(), stepBytes)

  /**
   * Stores the last group's frames, removes the rows of the last step and the groups no row
   * reaches, and writes the Summary row.
   */
  def finish(): Unit = {
    if (frames != null) {
      frames.close()
      frames.sweep(evictionMicros)
    }
    pending.finish()
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
