package org.apache.spark.sql.slidingwindow.stored

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, TwoStacks, WindowBufferConf}
import org.apache.spark.sql.slidingwindow.state.sliding.{GroupRows, RowCursor, WindowState}
import org.apache.spark.sql.slidingwindow.state.sliding.StateRowKind.{Partial, QueueBack, Suffix}
import org.apache.spark.sql.slidingwindow.windows.{LongQueue, SlidingWindowSweep, Starts}

/**
 * Sliding windows in append mode: a group's Two-Stacks queue, and the sweep over it, kept in the
 * state between micro-batches (docs/state-format.md, section "Rows by format"):
 *  - the front: the group's Suffix rows ([[StoredQueueFront]]);
 *  - the back: the Partial rows pushed since the last flip ([[StoredQueueBack]]), whose aggregate,
 *    oldest time and the last time pushed into the queue are the group's QueueBack row;
 *  - the times pushed that the state still has, from which the sweep finds the right windows of
 *    the times earlier micro-batches pushed ([[StoredRightStarts]]).
 * A visit [[resume]]s the group's queue, pushes and closes through [[sweep]], [[evictExpired]],
 * and [[persist]]s what changed. One instance per task, resumed for each group visited.
 */
final class StoredQueue(state: WindowState, buffers: AggregateBuffers, bufferConf: WindowBufferConf,
    sizeMicros: Long) {
  private val rows = state.rows
  private val codec = state.codec
  private val front = new StoredQueueFront(rows, codec, bufferConf.newStack(buffers.numBufferFields))
  private val back = new StoredQueueBack(rows, codec, bufferConf.newStack(buffers.numBufferFields))
  private val queue = new TwoStacks(buffers, front, back)

  /** The sweep over the queue, where the group's last visit left it once [[resume]]d. */
  val sweep = new SlidingWindowSweep(sizeMicros, queue)

  private var group: UnsafeRow = _
  private var stored = false // the group has a QueueBack row
  private var pushed: RowCursor = _ // the times pushed, read by the sweep's right starts

  /**
   * Resumes the group's queue and its sweep where its last visit left them; returns the last time
   * pushed, if any. The times of the Partial rows the visit must remove once done go to `remove`:
   * where flips remove the partials they move into the front, those; else those whose right
   * windows the sweep reads that are older than `expiresBefore`, which no window left open holds.
   */
  def resume(group: UnsafeRow, expiresBefore: Long, remove: Long => Unit): Option[Long] = {
    this.group = group
    val backRow = Option(rows.get(group, QueueBack, 0L)).map(_.copy())
    stored = backRow.isDefined
    val lastPushed = backRow.flatMap(codec.lastPushed)
    val backOldest = backRow.flatMap(codec.backOldest)
    val flipsRemove = state.flipsRemovePartials
    queue.clear()
    front.open(group)
    back.open(group, for (from <- backOldest; to <- lastPushed) yield (from, to),
      if (flipsRemove) remove else StoredQueue.ignore)
    backOldest.foreach(queue.restoreBack(codec.buffer(backRow.get), _))
    pushed = lastPushed.map(pushedTimes(group, _)).orNull
    sweep.resume(lastPushed, if (pushed == null) Starts.empty
      else new StoredRightStarts(pushed, sizeMicros, expiresBefore, if (flipsRemove) StoredQueue.ignore else remove))
    lastPushed
  }

  /**
   * Evicts what no window left open holds: times up to watermark - S (`expiresBefore`). Where flips
   * remove partials, a time at exactly watermark - S stays in the queue (it is evicted when the
   * next window closes): its right window is still open, and its time must stay in a row.
   */
  def evictExpired(expiresBefore: Long): Unit =
    queue.evictBefore(if (state.flipsRemovePartials) expiresBefore else expiresBefore + 1)

  /** Closes the cursor over the times pushed: before the queue is persisted. */
  def closeCursors(): Unit = if (pushed != null) {
    pushed.close()
    pushed = null
  }

  /**
   * Stores the queue back: the front built, and the back's row if the group needs a visit again
   * (`visitAgain`); a group that does not has nothing left in its queue.
   */
  def persist(visitAgain: Boolean): Unit = {
    closeCursors()
    front.persist()
    if (!visitAgain) {
      if (stored) rows.remove(group, QueueBack, 0L)
    } else {
      sweep.lastTime.foreach { last =>
        rows.put(group, QueueBack, 0L, codec.queueBackValue(buffers.freeze(queue.backAggregateBuffer), last,
          queue.backOldestTime))
      }
    }
    back.clear()
  }

  /**
   * The times of a group pushed into its queue, up to `through` (its last time pushed), that the
   * state still has, ascending: its Partial rows up to `through`, and where flips remove them,
   * after the times of its Suffix rows, which are older. Only times are read.
   */
  private def pushedTimes(group: UnsafeRow, through: Long): RowCursor =
    if (!state.flipsRemovePartials) rows.rows(group, Partial, Long.MinValue, through)
    else new StoredQueue.FollowedTimes(rows.rows(group, Suffix, Long.MinValue, through),
      rows.rows(group, Partial, Long.MinValue, through))
}

object StoredQueue {
  private val ignore: Long => Unit = _ => ()

  /**
   * Deletes the QueueBack and Suffix rows of a group, if a visit in append mode left any: a group
   * swept again in memory, or in update mode, keeps no queue. `scratch` holds the times meanwhile.
   */
  def remove(rows: GroupRows, group: UnsafeRow, scratch: LongQueue): Unit =
    if (rows.get(group, QueueBack, 0L) != null) {
      rows.remove(group, QueueBack, 0L)
      val suffixes = rows.rows(group, Suffix, Long.MinValue, Long.MaxValue)
      try while (suffixes.next()) scratch.add(suffixes.time) finally suffixes.close()
      while (scratch.nonEmpty) rows.remove(group, Suffix, scratch.removeHead())
    }

  /**
   * The times of `older`, then those of `newer` after them: the times of a group pushed into its
   * queue when its front's times are in Suffix rows (older) and its back's in Partial rows.
   * `newer` is not read before `older` is done, so a visit that reads the front's first times does
   * not read the back. Values are not read: [[RowCursor.value]] is null.
   */
  private final class FollowedTimes(older: RowCursor, newer: RowCursor) extends RowCursor {
    private var inOlder = true
    private var any = false

    override def next(): Boolean = {
      if (inOlder) {
        if (older.next()) {
          set(older.time, null)
          any = true
          return true
        }
        inOlder = false
      }
      val last = time
      while (newer.next()) {
        if (!any || newer.time > last) {
          set(newer.time, null)
          any = true
          return true
        }
      }
      false
    }

    override def close(): Unit = try older.close() finally newer.close()
  }
}
