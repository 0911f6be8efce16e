package org.apache.spark.sql.slidingwindow.state
package trailing

/**
 * Bounds of the times of the Pending rows of streaming trailing windows that wait for the
 * watermark ([[PendingParts]]), in microseconds: every row waiting has a time in [earliest,
 * latest]. The bounds may be wider than the rows, never narrower: `earliest` is when the first row
 * may be due, which a micro-batch without input that the idle clock would make reach it runs for
 * ([[org.apache.spark.sql.slidingwindow.idle.IdleClock.wantsAnotherBatch]]). Kept in the Summary
 * row ([[TrailingSummary]]), so that a micro-batch reads the buckets its watermark makes rows due
 * in, not every row waiting, to know them.
 */
private[slidingwindow] final case class WaitingTimes(earliest: Long, latest: Long) {
  /** No row waits. */
  def isEmpty: Boolean = earliest > latest

  /** Both bounds, where rows of either wait. */
  def union(other: WaitingTimes): WaitingTimes =
    WaitingTimes(math.min(earliest, other.earliest), math.max(latest, other.latest))

  /**
   * The rows of these bounds that wait once the rows at or before `evictionMicros` are emitted,
   * those the micro-batch read left out: none is before `notReadFrom`, the earliest time a row it
   * did not read may have.
   */
  def notRead(evictionMicros: Long, notReadFrom: Long): WaitingTimes =
    if (latest <= evictionMicros || notReadFrom > latest) WaitingTimes.none
    else WaitingTimes(math.max(earliest, notReadFrom), latest)
}

private[slidingwindow] object WaitingTimes {
  val none: WaitingTimes = WaitingTimes(Long.MaxValue, Long.MinValue)

  def of(time: Long): WaitingTimes = WaitingTimes(time, time)
}
