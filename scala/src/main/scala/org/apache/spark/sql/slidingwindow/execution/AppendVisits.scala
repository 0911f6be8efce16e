package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.sql.slidingwindow.stored.StoredQueue

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.aggregation.TwoStacks
import org.apache.spark.sql.slidingwindow.state.sliding.StateRowKind.Partial
import org.apache.spark.sql.slidingwindow.windows.{LongQueue, SaturatingTime, SlidingWindowSweep, Starts, WindowSink}

/**
 * Sliding windows in append mode: the visits of groups that have a window closing under the
 * eviction watermark W. A visit resumes the group's [[SlidingWindowSweep]] where the last one
 * stopped, over the group's Two-Stacks queue kept in the state ([[StoredQueue]]), pushes the times
 * up to W, closes the windows that end by W, one per step, and stores the queue back. Everything
 * it reads or writes is in proportion to the windows it closes and the rows it pushes or expires:
 * never the whole window or the whole state. A group small enough to be swept again
 * ([[org.apache.spark.sql.slidingwindow.state.WindowState.resweepable]], state format 2) keeps no
 * queue: its visit sweeps all its rows again in memory. Rows older than W - S, which no window
 * still open can hold, are removed.
 *
 * Owns the visits' scratch state, reused from group to group: the stored queue, the sweep in
 * memory, the times to remove.
 *
 * @param sink the sink of a group's windows that a filter `(start, end)` accepts
 */
private[execution] final class AppendVisits(context: StreamingWindowsContext,
    sink: (UnsafeRow, (Long, Long) => Boolean) => WindowSink) {
  import context._

  private val rows = state.rows
  private val codec = state.codec
  private lazy val storedQueue = new StoredQueue(state, buffers, bufferConf, sizeMicros)
  private lazy val memorySweep = new SlidingWindowSweep(sizeMicros, TwoStacks.inMemory(buffers, bufferConf))
  // Times of a group's rows to remove once its visit is done (its cursors may still read them): a
  // spillable queue of primitive longs, as a visit can expire millions.
  private val toRemove = new LongQueue
  private val ignoreTime: Long => Unit = _ => ()

  /** The visit of a group open in the state, in steps; it closes the group when done. */
  def visit(group: UnsafeRow, watermark: Long): StepWork = new Visit(group, watermark)

  private final class Visit(group: UnsafeRow, watermark: Long) extends StepWork {
    // A group in its record sweeps all its rows again, in memory, from its first one (as a group
    // without a queue does), and keeps no queue: its record is copied whole at each visit anyway,
    // and the merges cost less than a stored queue's upkeep.
    private val resweep = state.resweepable
    // Every window left open after this visit starts after watermark - S.
    private val expiresBefore = SaturatingTime.sub(watermark, sizeMicros)
    // Which Partial rows the visit removes: those that expire (older than every window left open),
    // or where flips remove the partials they move into the front (state format 2), those;
    // expired times are then in no row once evicted from the queue.
    private val removeExpired = resweep || !state.flipsRemovePartials
    private val sweep = if (resweep) memorySweep else storedQueue.sweep

    toRemove.clear()
    private val lastPushed =
      if (resweep) { sweep.resume(None, Starts.empty); None }
      else storedQueue.resume(group, expiresBefore, toRemove.add)
    private val fresh = rows.rows(group, Partial, lastPushed.map(_ + 1).getOrElse(Long.MinValue), Long.MaxValue)

    // A window ending at or below the late-events watermark (the previous micro-batch's) holds
    // only rows of earlier micro-batches, and was emitted when that watermark passed it. The
    // sweep meets such windows where it starts from the group's first row: a small group's, or
    // one whose state was written by a run in update mode (restarted in append mode), which left
    // no queue and expired rows they needed.
    private val windows = sink(group, (_, end) => lateEventsWatermarkMicros.forall(end > _))
    private var pending: InternalRow = _ // the partial at `fresh.time`, to push
    private var freshDone = false
    private var firstUnpushed: Option[Long] = None
    private var cursorsOpen = true

    override def step(): Boolean =
      try {
        if (pending != null) {
          if (sweep.add(fresh.time, pending, windows, 1)) pending = null
          true
        } else if (!freshDone) {
          if (!fresh.next()) {
            freshDone = true
          } else if (fresh.time > watermark) {
            firstUnpushed = Some(fresh.time)
            freshDone = true
          } else {
            if (removeExpired && fresh.time < expiresBefore) toRemove.add(fresh.time)
            // Taken at once: other reads of the state may reuse the cursor's value row.
            pending = fresh.buffer(codec)
          }
          true
        } else if (sweep.closeThrough(watermark, windows, 1)) {
          true
        } else {
          end()
          false
        }
      } catch {
        case e: Throwable => closeCursors(); throw e
      }

    private def closeCursors(): Unit = if (cursorsOpen) {
      cursorsOpen = false
      fresh.close()
      if (!resweep) storedQueue.closeCursors()
    }

    /** Stores what the visit changed and schedules the group's next visit. */
    private def end(): Unit = {
      if (!resweep) storedQueue.evictExpired(expiresBefore)
      // When the group needs a visit again: the left window of its first time not pushed, its
      // first right window left open, or, for the clean-up, the end of the last time's right
      // window.
      val pushed = sweep.lastTime
      var next = firstUnpushed
      def atMost(time: Long): Unit = if (next.forall(time < _)) next = Some(time)
      sweep.nextStart.foreach(start => atMost(start + sizeMicros))
      pushed.foreach(last => if (last + 1 + sizeMicros > watermark) atMost(last + 1 + sizeMicros))
      closeCursors()

      if (!resweep) storedQueue.persist(visitAgain = next.isDefined)
      while (toRemove.nonEmpty) rows.remove(group, Partial, toRemove.removeHead())
      if (resweep) {
        StoredQueue.remove(rows, group, toRemove) // if it had one: it became small
        memorySweep.reset()
      }
      next.foreach(state.timers.schedule(_, group))
      state.close()
    }
  }
}
