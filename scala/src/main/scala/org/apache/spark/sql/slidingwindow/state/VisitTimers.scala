package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * When each group must be visited again, as Spark's `TimerStateImpl` keeps processing timers: a
 * visit schedules the group's next one, and a micro-batch visits the groups whose visit is due
 * under its eviction watermark, given once when the state is opened ([[WindowState.apply]]).
 * Without a watermark, no visit is due.
 */
trait VisitTimers {
  /** The group must be visited once the watermark reaches `time`. */
  def schedule(time: Long, group: InternalRow): Unit

  /** Takes back a [[schedule]] that is no longer needed. */
  def unschedule(time: Long, group: InternalRow): Unit

  /**
   * The groups to visit under the watermark, each once, read as they are pulled. State format 1
   * consumes their schedule entries (a visit may schedule the group again, always later than the
   * watermark); state format 2 leaves its entries to [[WindowState.close]], leaves out the groups
   * [[claimVisit]]ed, and may return a group whose visit is not due yet ([[stillDue]]).
   */
  def due(): Iterator[UnsafeRow]

  /**
   * Whether the group open now, returned by [[due]], has a visit due (state format 2: its entry in
   * the time index may be earlier than its next visit).
   */
  def stillDue: Boolean

  /**
   * Whether the group open now, whose new rows start at `firstNew`, is due, as far as the state
   * knows without reading its time index; if so, the caller visits it now and [[due]] leaves it
   * out. Only where [[WindowState.claimsVisitsAtIngestion]] (state format 2).
   */
  def claimVisit(group: UnsafeRow, firstNew: Long): Boolean

  /**
   * Once the micro-batch's visits are done: the earliest time a visit is scheduled at, as far as
   * the state knows without reading every group (it may be earlier than the visit itself, never
   * later); Long.MaxValue: none. No window closes before the watermark reaches it.
   */
  def nextDue: Long
}
