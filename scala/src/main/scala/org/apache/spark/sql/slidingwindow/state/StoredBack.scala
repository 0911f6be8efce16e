package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.aggregation.{PartialStack, RowStack}
import org.apache.spark.sql.slidingwindow.state.StateRowKind.Partial

/**
 * The back of a group's Two-Stacks queue between micro-batches: the Partial rows pushed since the
 * last flip, from the back's oldest time to the last time pushed (the queue keeps their aggregate
 * in the group's Meta row). They are read only when a flip needs them, under the elements pushed
 * in this micro-batch, which are kept in memory. Rows that expired are simply gone: a flip never
 * needs them, as they are older than every window left to close.
 *
 * Only a flip pops the back: the times it pops, every one a Partial row of the group, are handed
 * to `flipped` (state format 2 removes those rows once the front holds them,
 * [[WindowStateStore.frontKeepsPartials]]).
 */
final class StoredBack(state: WindowStateStore, memory: RowStack) extends PartialStack {
  private var group: UnsafeRow = _
  private var storedFrom = 0L
  private var storedTo = 0L
  private var storedPending = false
  private var flipped: Long => Unit = StoredBack.ignore

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
    val rows = state.rows(group, Partial, storedFrom, storedTo)
    try while (rows.next()) memory.push(rows.time, rows.buffer(state.codec))
    finally rows.close()
  }

  override def isEmpty: Boolean = { load(); memory.isEmpty }
  override def push(time: Long, partial: InternalRow): Unit = memory.push(time, partial)
  override def topTime: Long = { load(); memory.topTime }
  override def top: InternalRow = { load(); memory.top }
  override def pop(): Unit = { load(); flipped(memory.topTime); memory.pop() }

  override def clear(): Unit = {
    memory.clear()
    storedPending = false
    flipped = StoredBack.ignore
  }
}

private object StoredBack {
  val ignore: Long => Unit = _ => ()
}
