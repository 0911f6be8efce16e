package org.apache.spark.sql.slidingwindow.execution

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.aggregation.PartialBuilder
import org.apache.spark.sql.slidingwindow.state.sliding.StateRowKind.Partial

/**
 * Sliding windows (docs/contract.md, "Sliding windows") in one micro-batch of one partition:
 *
 *  1. ingest: rows at or below the late-events watermark are dropped; the others are
 *     pre-aggregated per (group, time) and merged into the group's Partial row of that time;
 *  2. append mode: the groups that have a window closing under the eviction watermark W are
 *     visited ([[AppendVisits]]): their windows that end by W are emitted, and their rows older
 *     than W - S, which no window still open can hold, removed;
 *     update mode: the changed windows of every group that received rows are emitted, and groups
 *     are visited only to expire rows ([[UpdateVisits]]).
 * The state says which groups are due ([[org.apache.spark.sql.slidingwindow.state.VisitTimers]]).
 *
 * Windows are enumerated by the same [[org.apache.spark.sql.slidingwindow.windows.SlidingWindowSweep]]
 * and Two-Stacks as batch queries, and closed with the same bounded steps (a budget of one window
 * each), so that each is handed on as it closes: a visit that closes millions holds none of them.
 */
final class SlidingWindowsProcessor(context: StreamingWindowsContext)
  extends StreamingWindowsProcessor(context) {
  import context._

  private val rows = state.rows
  private val timers = state.timers
  private val partial = new PartialBuilder(buffers)
  private lazy val appendVisits = new AppendVisits(context, new Sink(_, _))
  private lazy val updateVisits = new UpdateVisits(context, new Sink(_, _))

  private var input: Iterator[(UnsafeRow, Iterator[InternalRow])] = _
  private var dueGroups: Iterator[UnsafeRow] = _ // once every new row is stored
  private var work: StepWork = _ // a group's visit, or its changed windows, under way

  override protected def begin(rows: Iterator[InternalRow]): Unit = input = groups(rows)

  /**
   * One step: a step of the work under way, or the ingestion of one group, or, once every new
   * row is stored (the visits push the new times), the start of the next due group's visit. A
   * group that claims its visit at its ingestion
   * ([[org.apache.spark.sql.slidingwindow.state.WindowState.claimsVisitsAtIngestion]], state
   * format 2) is visited right after it, while it is open; in update mode, its changed windows
   * come first (they depend on its rows only).
   */
  override protected def step(): Boolean = {
    if (work != null) {
      if (!work.step()) work = null
    } else if (dueGroups == null) {
      if (input.hasNext) {
        val (group, groupRows) = input.next()
        state.open(group)
        val times = ingest(group, groupRows)
        val visitNow = state.claimsVisitsAtIngestion && timers.claimVisit(group, times.head)
        // The left window of the first new time closes when the watermark reaches it: append mode
        // emits it then. Update mode schedules the same visit (see `UpdateVisits.expire`). A visit
        // now schedules whatever is next.
        if (!visitNow) timers.schedule(times.head, group)
        work =
          if (!appendMode) updateVisits.changedWindows(group, times, expireAfter = visitNow)
          else if (visitNow) appendVisits.visit(group, evictionWatermarkMicros.get)
          else { state.close(); null }
      } else {
        dueGroups = timers.due()
      }
    } else if (dueGroups.hasNext) {
      val group = dueGroups.next()
      val watermark = evictionWatermarkMicros.get
      state.open(group)
      if (!timers.stillDue) state.close()
      else if (appendMode) work = appendVisits.visit(group, watermark)
      else { updateVisits.expire(group, watermark); state.close() }
    } else {
      return false
    }
    true
  }

  /**
   * Stores the new rows of a group; returns the times that received rows (append mode only needs
   * the first one).
   */
  private def ingest(group: UnsafeRow, groupRows: Iterator[InternalRow]): NewTimes = {
    val times = mutable.ArrayBuilder.make[Long]
    val created = mutable.ArrayBuilder.make[Long]
    var first = 0L
    var any = false
    val grouped = groupRows.buffered
    while (grouped.hasNext) {
      val t = grouped.head.getLong(timeOrdinal)
      partial.begin(grouped.next())
      while (grouped.hasNext && grouped.head.getLong(timeOrdinal) == t) partial.add(grouped.next())
      val stored = rows.get(group, Partial, t)
      if (stored == null) rows.insert(group, Partial, t, codec.partialValue(partial.result))
      else rows.put(group, Partial, t, codec.partialValue(buffers.mergePartials(codec.buffer(stored), partial.result)))
      if (!any) { first = t; any = true }
      if (!appendMode) {
        times += t
        if (stored == null) created += t
      }
    }
    if (appendMode) NewTimes(Array(first), null) else NewTimes(times.result(), created.result())
  }
}
