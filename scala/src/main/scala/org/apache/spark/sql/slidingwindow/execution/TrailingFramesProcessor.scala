package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.slidingwindow.late.LateRows
import org.apache.spark.sql.slidingwindow.state.trailing.TrailingState
import org.apache.spark.sql.slidingwindow.stored.StoredFrames

/**
 * One micro-batch of one partition of streaming trailing windows, over their state
 * ([[TrailingStateLayout]]):
 *  1. the input rows are kept in Pending rows ([[PendingParts]]: a part per group and span of
 *     time the watermark is likely to pass at once), but for those at or before the watermark for
 *     late rows (dropped: given to [[LateRows]]) and those without a time;
 *  2. the Pending rows at or before the eviction watermark are due: a prefix scan of each bucket
 *     (the second of a part's earliest row) between the two watermarks reads them, a few buckets
 *     at a time ([[TrailingDueSteps]]);
 *  3. in each step, each group with rows due resumes its frames where they were left (by its last
 *     micro-batch or step, [[StoredFrames]]), its rows due go through them in time order
 *     (the algorithm of batch queries, [[TrailingWindowsRun]]), each emitted with its windows, and
 *     its frames are stored again; once a step's rows are read, its parts are removed;
 *  4. once the output is read, the groups whose frames no later row reaches are removed
 *     ([[StoredFrames.sweep]]); the state's commit writes the Summary row, which counts the
 *     store's rows and bounds the times of the rows left waiting ([[TrailingState.nextDue]]).
 * No row comes at or before an emitted time later: it would be late. So a row's windows are
 * complete when it is emitted, a row is emitted exactly once, and a group's frames only ever
 * receive times after those they hold. A micro-batch reads the rows waiting for the watermark and
 * a few rows per group it emits, not the rows its frames hold.
 *
 * @param time    the ORDER BY expression, bound to the input rows (microseconds)
 * @param lags    how far back each frame ends, frames in the operator's order
 * @param chunkElements the elements of a chunk of the frames' stacks ([[StoredFrames]])
 * @param stepBytes the bytes of Pending parts a step of the rows due reads (at least a bucket's)
 * @param windows the shared algorithm over rows clustered by group, in time order
 * @param sparkEvictionMicros Spark's own eviction watermark, where the operator keeps an idle
 *                clock: rows emitted past it are counted in [[rowsClosedWhileIdle]]
 * @param lateRows where the rows dropped as late go: counted, and written where the query has a
 *                late-rows table
 */
final class TrailingFramesProcessor(
    state: TrailingState,
    time: Expression,
    batchId: Long,
    lateMicros: Long,
    evictionMicros: Long,
    largestSize: Long,
    lags: Array[Long],
    chunkElements: Int,
    stepBytes: Long,
    windows: TrailingWindowsRun,
    sparkEvictionMicros: Option[Long] = None,
    lateRows: LateRows = LateRows.counted()) {

  private val layout = state.layout
  private val pending = state.pending
  private var frames: StoredFrames = _

  /** The rows emitted that Spark's own eviction watermark kept waiting (the idle clock's). */
  var rowsClosedWhileIdle = 0L
  private val closedWhileIdleAfter = sparkEvictionMicros.getOrElse(Long.MaxValue)

  /**
   * The rows this micro-batch emits, with their windows; [[finish]] once they are read. A
   * watermark that did not move (the first micro-batch, one without a later time) makes none due
   * and removes nothing: the state is not read.
   */
  def process(input: Iterator[InternalRow]): Iterator[InternalRow] = {
    pending.keep(input, time, batchId, lateRows)
    if (evictionMicros <= lateMicros) Iterator.empty
    else windows.withQueues(due(), buffers => {
      frames = new StoredFrames(state.frames, buffers, lags, largestSize, chunkElements)
      frames
    })
  }

  /**
   * The Pending rows due, in steps of a few buckets ([[TrailingDueSteps]]), each step's group
   * after group, each group's in (time, seq) order.
   */
  private def due(): Iterator[InternalRow] =
    new TrailingDueSteps(pending, layout.groupOfKey(), stepBytes,
      t => if (t > closedWhileIdleAfter) rowsClosedWhileIdle += 1)

  /**
   * Stores the last group's frames, and removes the rows of the last step and the groups no row
   * reaches; the state's commit follows.
   */
  def finish(): Unit = {
    if (frames != null) {
      frames.close()
      frames.sweep(evictionMicros)
    }
    pending.finish()
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
