package org.apache.spark.sql.slidingwindow.execution

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.aggregation.{PartialBuilder, TwoStacks}
import org.apache.spark.sql.slidingwindow.state.{StoredBack, StoredFront}
import org.apache.spark.sql.slidingwindow.state.StateRowKind.{Meta, Partial, Suffix}
import org.apache.spark.sql.slidingwindow.windows.{LongQueue, SlidingWindowSweep, Starts}

/**
 * Sliding windows (docs/contract.md, "Sliding windows") in one micro-batch of one partition:
 *
 *  1. ingest: rows at or below the late-events watermark are dropped; the others are
 *     pre-aggregated per (group, time) and merged into the group's Partial row of that time;
 *  2. append mode: the groups that have a window closing under the eviction watermark W are
 *     visited (the time index says which). A visit resumes the group's [[SlidingWindowSweep]]
 *     where the last one stopped, over the group's Two-Stacks queue kept in the state
 *     ([[StoredFront]], [[StoredBack]] and its Meta row), pushes the times up to W, closes the
 *     windows that end by W and stores the queue back. Everything it reads or writes is in
 *     proportion to the windows it closes and the rows it pushes or expires: never the whole
 *     window or the whole state. A group whose state is one record read and written whole
 *     (state format 2, [[org.apache.spark.sql.slidingwindow.state.WindowStateStore.resweepable]])
 *     keeps no queue: its visit sweeps all its rows again in memory;
 *     update mode: every window of a touched group whose rows changed (start within [u - S,
 *     u + 1] of a new time u) is emitted, and groups are visited only to expire rows, on the
 *     same schedule as in append mode (so that a run restarted in append mode finds them);
 *  3. rows older than W - S, which no window still open can hold, are removed during the visits.
 *
 * Windows are enumerated by the same [[SlidingWindowSweep]] and Two-Stacks as batch queries, and
 * closed with the same bounded steps (`add` and `closeThrough` with a budget of one window), so
 * that each is handed on as it closes: a visit that closes millions holds none of them.
 */
final class SlidingWindowsProcessor(context: StreamingWindowsContext)
  extends StreamingWindowsProcessor(context) {
  import context._

  private val partial = new PartialBuilder(buffers)

  private var input: Iterator[(UnsafeRow, Iterator[InternalRow])] = _
  private var dueGroups: Iterator[UnsafeRow] = _ // once every new row is stored
  private var work: StepWork = _ // a group's visit, or its changed windows, under way

  override protected def begin(rows: Iterator[InternalRow]): Unit = input = groups(rows)

  /**
   * One step: a step of the work under way, or the ingestion of one group, or, once every new
   * row is stored (the visits push the new times), the start of the next due group's visit. A
   * group whose state says that it is due ([[org.apache.spark.sql.slidingwindow.state.WindowStateStore.claimVisit]],
   * state format 2) is visited right after its ingestion, while it is open; in update mode, its
   * changed windows come first (they depend on its rows only).
   */
  override protected def step(): Boolean = {
    if (work != null) {
      if (!work.step()) work = null
    } else if (dueGroups == null) {
      if (input.hasNext) {
        val (group, rows) = input.next()
        state.open(group)
        val times = ingest(group, rows)
        val visitNow = evictionWatermarkMicros.exists(state.claimVisit(group, _, times.head))
        // The left window of the first new time closes when the watermark reaches it: append mode
        // emits it then. Update mode schedules the same visit (see `expire`). A visit now
        // schedules whatever is next.
        if (!visitNow) state.schedule(times.head, group)
        work =
          if (!appendMode) new ChangedWindows(group, times, expireAfter = visitNow)
          else if (visitNow) new Visit(group, evictionWatermarkMicros.get)
          else { state.close(); null }
      } else {
        dueGroups = evictionWatermarkMicros.map(state.due).getOrElse(Iterator.empty)
      }
    } else if (dueGroups.hasNext) {
      val group = dueGroups.next()
      val watermark = evictionWatermarkMicros.get
      state.open(group)
      if (!state.stillDue(watermark)) state.close()
      else if (appendMode) work = new Visit(group, watermark)
      else { expire(group, watermark); state.close() }
    } else {
      return false
    }
    true
  }

  /**
   * Stores the new rows of a group; returns the times that received rows (append mode only
   * needs the first one).
   */
  private def ingest(group: UnsafeRow, rows: Iterator[InternalRow]): NewTimes = {
    val times = mutable.ArrayBuilder.make[Long]
    val created = mutable.ArrayBuilder.make[Long]
    var first = 0L
    var any = false
    val grouped = rows.buffered
    while (grouped.hasNext) {
      val t = grouped.head.getLong(timeOrdinal)
      partial.begin(grouped.next())
      while (grouped.hasNext && grouped.head.getLong(timeOrdinal) == t) partial.add(grouped.next())
      val stored = state.get(group, Partial, t)
      if (stored == null) state.insert(group, Partial, t, codec.partialValue(partial.result))
      else state.put(group, Partial, t, codec.partialValue(buffers.mergePartials(codec.buffer(stored), partial.result)))
      if (!any) { first = t; any = true }
      if (!appendMode) {
        times += t
        if (stored == null) created += t
      }
    }
    if (appendMode) NewTimes(Array(first), null) else NewTimes(times.result(), created.result())
  }

  /**
   * The times of a group that received rows in this micro-batch, ascending, and among them
   * those the group had no row at before.
   */
  private case class NewTimes(received: Array[Long], created: Array[Long]) {
    def head: Long = received.head
    def last: Long = received.last
    /** Did a time in [from, to] receive rows? */
    def receivedWithin(from: Long, to: Long): Boolean = within(received, from, to)
    def isCreated(t: Long): Boolean = within(created, t, t)

    private def within(times: Array[Long], from: Long, to: Long): Boolean = {
      if (times.length == 1) return from <= times(0) && times(0) <= to // one row a micro-batch: the common case
      var i = java.util.Arrays.binarySearch(times, from)
      if (i < 0) i = -i - 1
      i < times.length && times(i) <= to
    }
  }

  private def saturatingAdd(t: Long, d: Long): Long = if (t > Long.MaxValue - d) Long.MaxValue else t + d
  private def saturatingSub(t: Long, d: Long): Long = if (t < Long.MinValue + d) Long.MinValue else t - d

  /** Rows older than this time are in no window left open once the watermark is `watermark`. */
  private def expiryTime(watermark: Long): Long = saturatingSub(watermark, sizeMicros)

  // Append mode: one sweep over a queue whose stacks are kept in the state, re-opened per group.
  private lazy val front = new StoredFront(state, bufferConf.newStack(buffers.numBufferFields))
  private lazy val back = new StoredBack(state, bufferConf.newStack(buffers.numBufferFields))
  private lazy val storedQueue = new TwoStacks(buffers, front, back)
  private lazy val storedSweep = new SlidingWindowSweep(sizeMicros, storedQueue)

  // Times of a group's rows to remove once its visit is done (its cursors may still read them):
  // a spillable queue of primitive longs, as a visit can expire millions.
  private lazy val toRemove = new LongQueue
  private val ignoreTime: Long => Unit = _ => ()

  /**
   * Append mode: the visit of a group, in steps. It continues the group's sweep from the state,
   * closes its windows that end at or before `watermark` one per step, then stores the rest and
   * schedules the group's next visit.
   */
  private final class Visit(group: UnsafeRow, watermark: Long) extends StepWork {
    // A group in its record sweeps all its rows again, in memory, from its first one (as a group
    // without a queue does), and keeps no queue: its record is copied whole at each visit anyway,
    // and the merges cost less than a stored queue's upkeep.
    private val resweep = state.resweepable
    private val stored = Option(state.get(group, Meta, 0L))
    private val meta = if (resweep) None else stored.map(_.copy())
    private val lastPushed = meta.flatMap(codec.lastPushed)
    private val backOldest = meta.flatMap(codec.backOldest)
    // Every window left open after this visit starts after watermark - S.
    private val expiresBefore = expiryTime(watermark)
    private val sweep = if (resweep) memorySweep else storedSweep
    // Which Partial rows the visit removes: those that expire (older than every window left open),
    // or where a queue's front does not keep them (state format 2), those its flips move into the
    // front; expired times are then in no row once evicted from the queue.
    private val removeExpired = resweep || state.frontKeepsPartials

    toRemove.clear()
    if (!resweep) {
      storedQueue.clear()
      front.open(group)
      back.open(group, for (from <- backOldest; to <- lastPushed) yield (from, to),
        if (removeExpired) ignoreTime else toRemove.add)
      backOldest.foreach(storedQueue.restoreBack(codec.buffer(meta.get), _))
    }
    private val earlier = lastPushed.map(state.pushedTimes(group, _))
    sweep.resume(lastPushed, earlier.map(new StoredRightStarts(_, sizeMicros, expiresBefore,
      if (removeExpired) toRemove.add else ignoreTime)).getOrElse(Starts.empty))
    private val fresh = state.rows(group, Partial, lastPushed.map(_ + 1).getOrElse(Long.MinValue), Long.MaxValue)

    // A window ending at or below the late-events watermark (the previous micro-batch's) holds
    // only rows of earlier micro-batches, and was emitted when that watermark passed it. The
    // sweep meets such windows where it starts from the group's first row: a small group's, or
    // one whose state was written by a run in update mode (restarted in append mode), which
    // left no queue and expired rows they needed.
    private val sink = new Sink(group, (_, end) => lateEventsWatermarkMicros.forall(end > _))
    private var pending: InternalRow = _ // the partial at `fresh.time`, to push
    private var freshDone = false
    private var firstUnpushed: Option[Long] = None
    private var cursorsOpen = true

    override def step(): Boolean =
      try {
        if (pending != null) {
          if (sweep.add(fresh.time, pending, sink, 1)) pending = null
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
        } else if (sweep.closeThrough(watermark, sink, 1)) {
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
      earlier.foreach(_.close())
    }

    /** Stores what the visit changed and schedules the group's next visit. */
    private def end(): Unit = {
      // What no window left open holds: times up to watermark - S. Where the front keeps no
      // Partial rows, a time at exactly watermark - S stays in the queue (it is evicted when the
      // next window closes): its right window is still open, and its time must stay in a row.
      if (!resweep) storedQueue.evictBefore(if (removeExpired) expiresBefore + 1 else expiresBefore)
      // When the group needs a visit again: the left window of its first time not pushed, its
      // first right window left open, or, for the clean-up, the end of the last time's right
      // window.
      val pushed = sweep.lastTime
      var next = firstUnpushed
      def atMost(time: Long): Unit = if (next.forall(time < _)) next = Some(time)
      sweep.nextStart.foreach(start => atMost(start + sizeMicros))
      pushed.foreach(last => if (last + 1 + sizeMicros > watermark) atMost(last + 1 + sizeMicros))
      closeCursors()

      if (!resweep) front.persist()
      while (toRemove.nonEmpty) state.remove(group, Partial, toRemove.removeHead())
      if (resweep) {
        if (stored.isDefined) removeStoredQueue(group) // it became small
        next.foreach(state.schedule(_, group))
        memorySweep.reset()
      } else {
        next match {
          case None =>
            if (meta.isDefined) state.remove(group, Meta, 0L) // nothing of the group is left
          case Some(time) =>
            pushed.foreach { last =>
              state.put(group, Meta, 0L, codec.metaValue(buffers.freeze(storedQueue.backAggregateBuffer),
                last, storedQueue.backOldestTime))
            }
            state.schedule(time, group)
        }
        back.clear()
      }
      state.close()
    }
  }

  // A sweep in memory: update mode's over the stored partials near the new times, append mode's
  // over all the partials of a group in its record. Empty between works: each resets it when done.
  private lazy val memorySweep = new SlidingWindowSweep(sizeMicros, TwoStacks.inMemory(buffers, bufferConf))

  /**
   * Update mode: the windows whose rows changed, new ones included, in steps; then, when the
   * group's visit was claimed at its ingestion (`expireAfter`), its [[expire]]. A window changed
   * when it holds a time u that received rows (its start a has u - S <= a <= u), or when it is
   * the right window of a time u that had no row before, [u + 1, u + 1 + S], and no window had
   * its bounds before: none did unless a row was already at its end (the same bounds as that
   * row's left window). Unchanged windows are not emitted.
   */
  private final class ChangedWindows(group: UnsafeRow, times: NewTimes, expireAfter: Boolean) extends StepWork {
    // The stored times the sweep has pushed: by the time a window closes, those up to its end.
    sweptCount = 0
    private def storedAt(t: Long): Boolean = java.util.Arrays.binarySearch(swept, 0, sweptCount, t) >= 0
    private val sink = new Sink(group, (start, end) =>
      times.receivedWithin(start, end) || (times.isCreated(start - 1) && !storedAt(end)))
    // Such a window holds times in [u - S, u + 1 + S] and exists because of a time in
    // [u - S - 1, u + 1 + S] (its own end for a left window; for a right window, the time
    // before its start and the next one): only the stored partials within S + 1 of a time that
    // received rows are swept.
    private val reach = sizeMicros + 1
    private val rows = state.rows(group, Partial, saturatingSub(times.head, reach), saturatingAdd(times.last, reach))
    private var rowsOpen = true
    private var pending: InternalRow = _ // the partial at `rows.time`, to push

    override def step(): Boolean =
      try {
        if (pending != null) {
          val t = rows.time
          if (memorySweep.add(t, pending, sink, 1)) {
            pending = null
            if (sweptCount == swept.length) swept = java.util.Arrays.copyOf(swept, 2 * sweptCount)
            swept(sweptCount) = t
            sweptCount += 1
          }
          true
        } else if (rowsOpen) {
          if (!rows.next()) {
            rows.close()
            rowsOpen = false
          } else if (times.receivedWithin(rows.time - sizeMicros - 1, rows.time + sizeMicros + 1)) {
            pending = rows.buffer(codec)
          }
          true
        } else if (memorySweep.closeThrough(Long.MaxValue, sink, 1)) {
          true
        } else {
          memorySweep.reset()
          if (expireAfter) expire(group, evictionWatermarkMicros.get)
          state.close()
          false
        }
      } catch {
        case e: Throwable => if (rowsOpen) rows.close(); throw e
      }
  }

  private var swept = new Array[Long](64)
  private var sweptCount = 0

  /**
   * Update mode: removes a group's rows older than watermark - S, and schedules the group's next
   * visit when its next window closes, as append mode does: at its first time after the
   * watermark (a left window) or when the right window of its oldest time left ends, whichever
   * comes first (when the oldest rows expire is the later of the two). Update mode itself needs
   * only the clean-up, but a query restarted in append mode from this state finds the group
   * by this schedule, and must emit each window that closes after the restart when it closes.
   * A group left without rows also loses the queue that a run in append mode may have stored.
   */
  private def expire(group: UnsafeRow, watermark: Long): Unit = {
    val expiresBefore = expiryTime(watermark)
    toRemove.clear()
    var kept = false
    var oldestKept = 0L
    val rows = state.rows(group, Partial, Long.MinValue, Long.MaxValue)
    try {
      while (!kept && rows.next()) {
        if (rows.time < expiresBefore) toRemove.add(rows.time) else { oldestKept = rows.time; kept = true }
      }
    } finally rows.close()
    while (toRemove.nonEmpty) state.remove(group, Partial, toRemove.removeHead())
    if (kept) {
      val nextLeftEnd = if (oldestKept > watermark) oldestKept else firstTimeAfter(group, watermark)
      state.schedule(math.min(nextLeftEnd, saturatingAdd(oldestKept, sizeMicros + 1)), group)
    } else {
      removeStoredQueue(group)
    }
  }

  /** The first time after the watermark, or Long.MaxValue if none (no boxing: once per visit). */
  private def firstTimeAfter(group: UnsafeRow, watermark: Long): Long =
    if (watermark == Long.MaxValue) Long.MaxValue
    else {
      val rows = state.rows(group, Partial, watermark + 1, Long.MaxValue)
      try if (rows.next()) rows.time else Long.MaxValue finally rows.close()
    }

  /** Deletes the Meta and Suffix rows of a group, if a run in append mode left any. */
  private def removeStoredQueue(group: UnsafeRow): Unit =
    if (state.get(group, Meta, 0L) != null) {
      state.remove(group, Meta, 0L)
      val rows = state.rows(group, Suffix, Long.MinValue, Long.MaxValue)
      try while (rows.next()) toRemove.add(rows.time) finally rows.close()
      while (toRemove.nonEmpty) state.remove(group, Suffix, toRemove.removeHead())
    }
}
