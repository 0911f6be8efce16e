package org.apache.spark.sql.slidingwindow.execution

import java.util.{HashMap => JHashMap}

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.slidingwindow.state.{StateStoreApi, TrailingFramesLayout, TrailingFramesState, TrailingSummary}

/**
 * One micro-batch of one partition of streaming trailing windows, over the state of format 2
 * ([[TrailingFramesLayout]]):
 *  1. the input rows are kept as Pending rows, but for those at or before the watermark for late
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
    windows: TrailingWindowsRun) extends TrailingStateProcessor {

  private val rows = layout.rows()
  private val family = layout.dataFamily
  private val emitted = mutable.ArrayBuffer.empty[UnsafeRow]
  private val summary = new TrailingSummary(store, layout)
  private var frames: TrailingFramesState = _

  var droppedLateRows = 0L
  private var kept = 0L
  private var removed = 0L
  private var read = 0L

  private def ofFrames(f: TrailingFramesState => Long): Long = if (frames == null) 0L else f(frames)
  private var summaryWritten = false
  override def rowsWritten: Long = kept + ofFrames(_.rowsWritten) + (if (summaryWritten) 1 else 0)
  override def rowsRemoved: Long = removed + ofFrames(_.rowsRemoved)
  override def rowsRead: Long = read + ofFrames(_.rowsRead) + summary.rowsRead
  override def rowCount: Option[Long] = Some(summary.rowCount)

  /**
   * The rows this micro-batch emits, with their windows; [[finish]] once they are read. A
   * watermark that did not move (the first micro-batch, one without a later time) makes none due
   * and removes nothing: the state is not read.
   */
  override def process(input: Iterator[InternalRow]): Iterator[InternalRow] = {
    val toValue = layout.valueOfInput()
    val (dropped, written) = TrailingStateProcessor.keep(input, store, family, layout.keyOfInput(time),
      toValue(_), layout.timeOrdinal, batchId, lateMicros)
    droppedLateRows += dropped
    kept += written
    summary.created += written
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
    def add(key: UnsafeRow, value: UnsafeRow): Unit = {
      read += 1
      val t = key.getLong(layout.timeOrdinal)
      if (t <= evictionMicros) {
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
        seqs(n) = key.getLong(layout.seqOrdinal)
        values(n) = value.getStruct(0, layout.numInputFields).copy()
        emitted += key.copy()
        n += 1
      }
    }
    // Every row waiting is after the watermark for late rows: the rows due are in the buckets
    // from its one to the eviction watermark's, unless the watermark jumped over more buckets
    // than a scan of the whole store costs.
    val (first, last) = (TrailingFramesLayout.bucketOf(lateMicros), TrailingFramesLayout.bucketOf(evictionMicros))
    if (lateMicros != Long.MinValue && last - first < TrailingFramesProcessor.MaxBucketScans) {
      var b = first
      while (b <= last) {
        val pending = StateStoreApi.prefixScan(store, rows.kindPrefix(TrailingFramesLayout.Pending, b), family)
        try pending.foreach(pair => add(pair.key, pair.value)) finally pending.close()
        b += 1
      }
    } else {
      val all = StateStoreApi.iterator(store, family)
      try all.foreach { pair =>
        if (pair.key.getInt(0) == TrailingFramesLayout.Pending) add(pair.key, pair.value)
      } finally all.close()
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
    emitted.foreach(key => StateStoreApi.remove(store, key, family))
    removed += emitted.length
    summary.removed += emitted.length
    emitted.clear()
    summaryWritten = summary.save()
  }
}

object TrailingFramesProcessor {
  /** The most buckets of Pending rows a micro-batch scans one by one, rather than the whole store. */
  val MaxBucketScans = 4096L
}
