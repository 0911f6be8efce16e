package org.apache.spark.sql.slidingwindow.execution

import java.util.{HashMap => JHashMap}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.slidingwindow.state.{TrailingFramesLayout, TrailingFramesState, TrailingPartsLayout, TrailingSummary}

/**
 * One micro-batch of one partition of streaming trailing windows, over the state of format 2 or 3
 * ([[TrailingFramesLayout]], [[TrailingPartsLayout]]):
 *  1. the input rows are kept as Pending rows ([[PendingRows]]: one state row each in format 2, in
 *     parts of a group and second in format 3), but for those at or before the watermark for late
 *     rows (dropped, counted) and those without a time;
 *  2. the Pending rows at or before the eviction watermark are due: a prefix scan of each bucket
 *     between the two watermarks reads them;
 *  3. each group with rows due resumes its frames where its last micro-batch left them
 *     ([[TrailingFramesState]]), its rows due go through them in time order (the algorithm of
 *     batch queries, [[TrailingWindowsRun]]), each emitted with its windows, and its frames are
 *     stored again;
 *  4. once the output is read, the rows emitted are removed, and so are the groups whose frames
 *     no later row reaches ([[TrailingFramesState.sweep]]); the Summary row counts the store's
 *     rows ([[TrailingSummary]]), where it has any.
 * No row comes at or before an emitted time later: it would be late. So a row's windows are
 * complete when it is emitted, a row is emitted exactly once, and a group's frames only ever
 * receive times after those they hold. A micro-batch reads the rows waiting for the watermark and
 * a few rows per group it emits, not the rows its frames hold.
 *
 * @param time    the ORDER BY expression, bound to the input rows (microseconds)
 * @param lags    how far back each frame ends, frames in the operator's order
 * @param chunkElements the elements of a chunk of the frames' stacks ([[TrailingFramesState]])
 * @param partBytes the bytes of rows a task holds in Pending parts before it writes them (format 3)
 * @param windows the shared algorithm over rows clustered by group, in time order
 */
final class TrailingFramesProcessor(
    store: StateStore,
    layout: TrailingFramesLayout,
    time: Expression,
    batchId: Long,
    lateMicros: Long,
    evictionMicros: Long,
    largestSize: Long,
    lags: Array[Long],
    chunkElements: Int,
    partBytes: Long,
    windows: TrailingWindowsRun) extends TrailingStateProcessor {

  private val pending = layout.pendingRows(store, lateMicros, evictionMicros, partBytes)
  private val summary = new TrailingSummary(store, layout)
  private var frames: TrailingFramesState = _

  private def ofFrames(f: TrailingFramesState => Long): Long = if (frames == null) 0L else f(frames)
  private var summaryWritten = false
  override def droppedLateRows: Long = pending.droppedLateRows
  override def rowsWritten: Long = pending.rowsWritten + ofFrames(_.rowsWritten) + (if (summaryWritten) 1 else 0)
  override def rowsRemoved: Long = pending.rowsRemoved + ofFrames(_.rowsRemoved)
  override def rowsRead: Long = pending.rowsRead + ofFrames(_.rowsRead) + summary.rowsRead
  override def rowCount: Option[Long] = Some(summary.rowCount)

  /**
   * The rows this micro-batch emits, with their windows; [[finish]] once they are read. A
   * watermark that did not move (the first micro-batch, one without a later time) makes none due
   * and removes nothing: the state is not read.
   */
  override def process(input: Iterator[InternalRow]): Iterator[InternalRow] = {
    pending.keep(input, time, batchId)
    if (evictionMicros <= lateMicros) Iterator.empty
    else windows.withQueues(due(), buffers => {
      frames = new TrailingFramesState(store, layout, summary, buffers, lags, largestSize, chunkElements)
      frames
    })
  }

  /** The Pending rows due, group after group, each group's in (time, seq) order. */
  private def due(): Iterator[InternalRow] = {
    val groupOf = layout.groupOfKey()
    val groups = new JHashMap[UnsafeRow, Integer]
    var groupIds = new Array[Int](64)
    var times = new Array[Long](64)
    var seqs = new Array[Long](64)
    var values = new Array[InternalRow](64)
    var n = 0
    pending.readDue { (key: UnsafeRow, t: Long, seq: Long, row: InternalRow) =>
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
    }
    val order = TrailingRowsProcessor.order(groupIds, times, seqs, n)
    Iterator.tabulate(n)(i => values(order(i)))
  }

  /**
   * Stores the last group's frames, removes the rows emitted and the groups no row reaches, and
   * writes the Summary row.
   */
  override def finish(): Unit = {
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
