package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * Rows by time, ascending, in two parallel arrays: the rows of one kind that a [[GroupRecord]]
 * holds. A visit reads them in order, adds at the newest end, removes at the oldest and moves
 * runs of them out to chunks; a group's record holds a few dozen at most. Sorted arrays do all
 * of that with binary searches and short array copies, where a `java.util.TreeMap` allocated a
 * node and a boxed time per row at each read of the record (a tenth of the samples of a large
 * window's visits, with the O(n) sizes of its range views).
 *
 * Indexes are positions in time order, valid until the next change.
 */
private[state] final class TimeRows {
  private var times = new Array[Long](16)
  private var values = new Array[UnsafeRow](16)
  private var count = 0

  def size: Int = count
  def isEmpty: Boolean = count == 0

  def clear(): Unit = {
    java.util.Arrays.fill(values.asInstanceOf[Array[AnyRef]], 0, count, null)
    count = 0
  }

  def timeAt(i: Int): Long = times(i)
  def valueAt(i: Int): UnsafeRow = values(i)

  /** The position of the first row at or after `time` (`size` if none). */
  def ceilingIndex(time: Long): Int = {
    if (count == 0 || time > times(count - 1)) return count
    val i = java.util.Arrays.binarySearch(times, 0, count, time)
    if (i >= 0) i else -i - 1
  }

  /** The position of the first row after `time` (`size` if none). */
  def higherIndex(time: Long): Int =
    if (time == Long.MaxValue) count else ceilingIndex(time + 1)

  private def indexOf(time: Long): Int =
    if (count == 0 || time > times(count - 1)) -count - 1 else java.util.Arrays.binarySearch(times, 0, count, time)

  def get(time: Long): UnsafeRow = {
    val i = indexOf(time)
    if (i >= 0) values(i) else null
  }

  /** Sets the row at `time` (appending, the common case, without a search). */
  def put(time: Long, value: UnsafeRow): Unit = {
    if (count == 0 || time > times(count - 1)) {
      insertAt(count, time, value)
    } else {
      val i = java.util.Arrays.binarySearch(times, 0, count, time)
      if (i >= 0) values(i) = value else insertAt(-i - 1, time, value)
    }
  }

  private def insertAt(at: Int, time: Long, value: UnsafeRow): Unit = {
    if (count == times.length) {
      times = java.util.Arrays.copyOf(times, 2 * count)
      values = java.util.Arrays.copyOf(values, 2 * count)
    }
    if (at < count) {
      System.arraycopy(times, at, times, at + 1, count - at)
      System.arraycopy(values, at, values, at + 1, count - at)
    }
    times(at) = time
    values(at) = value
    count += 1
  }

  /** Removes the row at `time`, if any. */
  def remove(time: Long): Unit = {
    val i = indexOf(time)
    if (i >= 0) removeRange(i, i + 1)
  }

  /** Removes the rows at positions [from, until). */
  def removeRange(from: Int, until: Int): Unit = if (from < until) {
    System.arraycopy(times, until, times, from, count - until)
    System.arraycopy(values, until, values, from, count - until)
    java.util.Arrays.fill(values.asInstanceOf[Array[AnyRef]], count - (until - from), count, null)
    count -= until - from
  }

  /** The times held, ascending (a copy). */
  def timesArray: Array[Long] = java.util.Arrays.copyOf(times, count)
}
