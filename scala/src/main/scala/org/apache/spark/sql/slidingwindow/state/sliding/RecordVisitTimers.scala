package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * State format 2's visit timers: a group's record says when it must be visited next
 * (`nextVisit`, kept in memory by [[schedule]]) and where its entry in the time index is
 * (`indexed`); [[closing]] makes the index agree, once per group opened.
 *
 * An entry is a lower bound of the group's next visit: a group that receives rows (is opened by
 * the ingestion, [[claimVisit]]) is visited then if it is due, in the same open, and keeps its
 * entry, even one under the watermark, which [[due]] passes over (`claimed`); so a group that
 * receives rows in every micro-batch writes its record and nothing else. [[due]] need not read the
 * index when every entry under the watermark is claimed or was removed unclaimed, which it knows
 * from the entries counted in the [[CommitRow]] (docs/state-format.md, section "Invariants", 7 to
 * 10); with `verify` (the tests), every such skip is checked against the index itself.
 *
 * @param entries   the time index (or, without one, every group: [[EveryGroupTimers]])
 * @param watermark the micro-batch's eviction watermark: visits due at or below it are made by it
 */
private[state] final class RecordVisitTimers(
    session: GroupRecordSession,
    entries: EntryTimers,
    commitRow: Option[CommitRow],
    watermark: Option[Long],
    verify: Boolean) extends VisitTimers {
  import GroupRecord.NoVisit

  private def record = session.record
  private val consumedThrough = watermark.getOrElse(Long.MinValue)

  // What `due` passes over in this micro-batch: the entries under the watermark that groups
  // visited at their ingestion keep, or, without a time index, those groups.
  private val claimed = new GroupSet
  private var active = false // the group open received rows
  private var claimedEntry = false // the group open claimed its entry

  // The time index's entries this micro-batch created and removed; of those it removed, the
  // entries at or below the watermark that no group claimed.
  private var created = 0L
  private var removed = 0L
  private var unclaimedRemovedDue = 0L

  /** The entries of the time index once this micro-batch's changes are in. */
  def entryCount: Long = commitRow.map(_.indexEntries).getOrElse(0L) + created - removed

  /** Starts the work on the group opened. */
  def opened(): Unit = {
    active = false
    claimedEntry = false
  }

  /**
   * Before the group's record is written: a visit due at or below the watermark was made by this
   * micro-batch, and the time index follows the next visit (with a time index).
   */
  def closing(): Unit = {
    if (record.nextVisit != NoVisit && record.nextVisit <= consumedThrough) {
      record.nextVisit = NoVisit
      session.markChanged()
    }
    if (record.nextVisit != NoVisit && record.nextVisit < earliestClosed) earliestClosed = record.nextVisit
    if (entries.hasTimeIndex) updateIndex()
  }

  /**
   * Makes the group's entry in the time index agree with its next visit: an entry at or before it
   * stays where it is, unless it is under the watermark and the group received no rows (it moves
   * to the next visit, not to be met by every micro-batch's [[due]] until then).
   */
  private def updateIndex(): Unit = {
    val (next, indexed) = (record.nextVisit, record.indexed)
    val keep = next != NoVisit && indexed != NoVisit && indexed <= next &&
      (indexed > consumedThrough || active)
    if (!keep && indexed != next) {
      val group = session.openGroup
      if (indexed != NoVisit) {
        entries.unschedule(indexed, group)
        removed += 1
        if (indexed <= consumedThrough && !claimedEntry) unclaimedRemovedDue += 1
      }
      if (next != NoVisit) {
        entries.schedule(next, group)
        created += 1
      }
      record.indexed = next
      session.markChanged()
    }
  }

  /**
   * The group's next visit is the earliest scheduled, of those later than the watermark (a visit
   * due at or below it is made by this micro-batch). The time index follows at [[closing]].
   */
  override def schedule(time: Long, group: InternalRow): Unit = {
    session.check(group)
    val pending = record.nextVisit
    if (pending == NoVisit || pending <= consumedThrough || time < pending) {
      record.nextVisit = time
      session.markChanged()
    }
  }

  override def unschedule(time: Long, group: InternalRow): Unit = {
    session.check(group)
    if (record.nextVisit == time) {
      record.nextVisit = NoVisit
      session.markChanged()
    }
  }

  /**
   * With a time index, the groups whose entry is at or below the watermark, but those claimed;
   * entries are not consumed: [[closing]] moves them. Without one, every group but those claimed.
   */
  override def due(): Iterator[UnsafeRow] = watermark match {
    case None => Iterator.empty
    case Some(w) if onlyClaimedEntriesDue =>
      if (verify) {
        val unclaimed = entries.scheduledThrough(w, claimed, counted = false)
        if (unclaimed.hasNext) {
          throw new IllegalStateException("the time index has an unclaimed entry under the watermark " +
            s"$w, which the count of its entries said it had not (docs/state-format.md, Invariants 10)")
        }
      }
      Iterator.empty
    case Some(w) => entries.scheduledThrough(w, claimed, counted = true)
  }

  /**
   * Whether every entry of the index at or below the watermark is claimed, without reading the
   * index: when the entries at the version opened are all those claimed and those under the
   * watermark removed unclaimed (docs/state-format.md, section "Invariants", 10).
   */
  private def onlyClaimedEntriesDue: Boolean =
    commitRow.exists(_.indexEntries == claimed.count + unclaimedRemovedDue)

  // The earliest next visit of the groups closed in this micro-batch.
  private var earliestClosed = Long.MaxValue

  /**
   * The earliest next visit of the groups closed, and with a time index, its first entry (the
   * groups not opened): without one, every group is opened in a micro-batch with a watermark.
   */
  override def nextDue: Long =
    if (entries.hasTimeIndex) math.min(earliestClosed, entries.nextDue) else earliestClosed

  /** Whether the group met by [[due]] has a visit due: its entry may be a lower bound only. */
  override def stillDue: Boolean = record.nextVisit != NoVisit && record.nextVisit <= consumedThrough

  /**
   * Due when its new rows start at or below the watermark (their left windows close), when its
   * next visit is, or, without a time index, always (every group is visited). A group that keeps
   * an entry under the watermark is left out of [[due]]. Without a watermark, nothing is due.
   */
  override def claimVisit(group: UnsafeRow, firstNew: Long): Boolean = watermark.exists { w =>
    session.check(group)
    active = true
    if (!entries.hasTimeIndex) {
      claimed.add(session.openGroup)
      true
    } else {
      if (record.indexed != NoVisit && record.indexed <= w) {
        claimed.add(entries.entryOf(record.indexed, group))
        claimedEntry = true
      }
      firstNew <= w || stillDue
    }
  }
}
