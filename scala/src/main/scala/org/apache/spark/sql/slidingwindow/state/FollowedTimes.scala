package org.apache.spark.sql.slidingwindow.state

/**
 * The times of `older`, then those of `newer` after them: the times of a group pushed into its
 * queue when its front's times are in Suffix rows (older) and its back's in Partial rows
 * ([[WindowStateStore.pushedTimes]]). `newer` is not read before `older` is done, so a visit that
 * reads the front's first times does not read the back. Values are not read: [[RowCursor.value]]
 * is null.
 */
private[state] final class FollowedTimes(older: RowCursor, newer: RowCursor) extends RowCursor {
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
