package org.apache.spark.sql.slidingwindow.execution

/**
 * The times of a group that received rows in a micro-batch, ascending, and among them those the
 * group had no row at before (update mode; append mode needs the first time only).
 */
private[execution] final case class NewTimes(received: Array[Long], created: Array[Long]) {
  def head: Long = received.head
  def last: Long = received.last

  /** Did a time in [from, to] receive rows? */
  def receivedWithin(from: Long, to: Long): Boolean = NewTimes.within(received, from, to)

  def isCreated(t: Long): Boolean = NewTimes.within(created, t, t)
}

private object NewTimes {
  private def within(times: Array[Long], from: Long, to: Long): Boolean = {
    if (times.length == 1) return from <= times(0) && times(0) <= to // one row a micro-batch: the common case
    var i = java.util.Arrays.binarySearch(times, from)
    if (i < 0) i = -i - 1
    i < times.length && times(i) <= to
  }
}
