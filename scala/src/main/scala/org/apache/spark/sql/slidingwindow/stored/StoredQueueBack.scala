package org.apache.spark.sql.slidingwindow.stored

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.aggregation.{PartialStack, RowStack}
import org.apache.spark.sql.slidingwindow.state.sliding.{GroupRows, WindowStateCodec}
import org.apache.spark.sql.slidingwindow.state.sliding.StateRowKind.Partial

/**
 * The back of a group's Two-Stacks queue between micro-batches: the Partial rows pushed since the
 * last flip, from the back's oldest time to the last time pushed (the queue keeps their aggregate
 * in the group's QueueBack row). They are read only when a flip needs them, under the elements
 * pushed in this micro-batch, which are kept in memory. Rows that expired are simply gone: a flip
 * never needs them, as they are older than every window left to close.
 *
 * Only a flip pops the back: the times it pops, every one a Partial row of the group, are handed
 * to `flipped` (state format 2 removes those rows once the front holds them,
 * [[org.apache.spark.sql.slidingwindow.state.WindowState.flipsRemovePartials]]). Part of the
 * [[StoredQueue]].
 */
private[slidingwindow] final class StoredQueueBack(rows: GroupRows, codec: WindowStateCodec, memory: RowStack)
  extends PartialStack {
  private var group: UnsafeRow = _
  private var storedFrom = 0L
  private var storedTo = 0L
  private var storedPending = false
  private var flipped: Long => Unit = StoredQueueBack.ignore

  /**
   * A group whose stored back holds its Partial rows within `stored` = (oldest, last pushed); the
   * times the flips pop go to `flipped`.
   */
  def open(group: UnsafeRow, stored: Option[(Long, Long)], flipped: Long => Unit): Unit = {
    clear()
    this.group = group
    this.flipped = flipped
    stored.foreach { case (from, to) =>
      storedFrom = from
      storedTo = to
      storedPending = true
    }
  }

  // The stored elements are older than those in memory: read when the memory ones are popped.
  private def load(): Unit = if (memory.isEmpty && storedPending) {
    storedPending = false
    val stored = rows.rows(group, Partial, storedFrom, storedTo)
    try while (stored.next()) memory.push(stored.time, stored.buffer(codec))
    finally stored.close()
  }

  override def isEmpty: Boolean = { load(); memory.isEmpty }
  override def push(time: Long, partial: InternalRow): Unit = memory.push(time, partial)
  override def topTime: Long = { load(); memory.topTime }
  override def top: InternalRow = { load(); memory.top }
  override def pop(): Unit = { load(); flipped(memory.topTime); memory.pop() }

  override def clear(): Unit = {
    memory.clear()
    storedPending = false
    flipped = StoredQueueBack.ignore
  }
}

private object StoredQueueBack {
  val ignore: Long => Unit = _ => ()
}
