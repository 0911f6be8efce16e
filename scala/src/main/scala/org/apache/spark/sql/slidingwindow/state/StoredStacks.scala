package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.aggregation.{PartialStack, RowStack}
import org.apache.spark.sql.slidingwindow.state.WindowStateLayout.{Partial, Suffix}
import org.apache.spark.sql.slidingwindow.windows.LongQueue

/**
 * The front of a group's Two-Stacks queue between micro-batches: its elements are the group's
 * Suffix rows, the oldest on top, read one at a time as the queue pops them. A flip (only when
 * the stored front is used up) builds the new front in memory; [[persist]] deletes the popped
 * rows and writes the new front back. One instance per task, [[open]]ed for each group.
 */
final class StoredFront(state: WindowStateStore, memory: RowStack) extends PartialStack {
  private var group: UnsafeRow = _
  private var cursor: RowCursor = _
  private var onStored = false // the cursor is on a stored element, the top
  private var storedTop: UnsafeRow = _
  // Times of the Suffix rows popped, deleted by `persist`: a visit that closes millions of windows
  // can pop millions, so they wait in a spillable queue of primitive longs.
  private val popped = new LongQueue

  def open(group: UnsafeRow): Unit = {
    clear()
    this.group = group
    cursor = state.rows(group, Suffix, Long.MinValue, Long.MaxValue)
    advance()
  }

  private def advance(): Unit = {
    onStored = cursor.next()
    storedTop = if (onStored) state.codec.buffer(cursor.value) else null
  }

  override def isEmpty: Boolean = !onStored && memory.isEmpty

  override def push(time: Long, partial: InternalRow): Unit = {
    assert(!onStored, "a flip pushes into an empty front only")
    memory.push(time, partial)
  }

  override def topTime: Long = if (onStored) cursor.time else memory.topTime
  override def top: InternalRow = if (onStored) storedTop else memory.top

  override def pop(): Unit =
    if (onStored) {
      popped.add(cursor.time)
      advance()
    } else {
      memory.pop()
    }

  /** Forgets the group (its stored rows stay as they are). */
  override def clear(): Unit = {
    if (cursor != null) cursor.close()
    cursor = null
    onStored = false
    storedTop = null
    memory.clear()
    popped.clear()
  }

  /** Deletes the Suffix rows popped, and stores the front built in memory. */
  def persist(): Unit = {
    cursor.close()
    while (popped.nonEmpty) state.remove(group, Suffix, popped.removeHead())
    while (!memory.isEmpty) {
      state.put(group, Suffix, memory.topTime, state.codec.value(memory.top))
      memory.pop()
    }
    clear()
  }
}

/**
 * The back of a group's Two-Stacks queue between micro-batches: the Partial rows pushed since the
 * last flip, from the back's oldest time to the last time pushed (the queue keeps their aggregate
 * in the group's Meta row). They are read only when a flip needs them, under the elements pushed
 * in this micro-batch, which are kept in memory. Rows that expired are simply gone: a flip never
 * needs them, as they are older than every window left to close.
 */
final class StoredBack(state: WindowStateStore, memory: RowStack) extends PartialStack {
  private var group: UnsafeRow = _
  private var storedFrom = 0L
  private var storedTo = 0L
  private var storedPending = false

  /** A group whose stored back holds its Partial rows within `stored` = (oldest, last pushed). */
  def open(group: UnsafeRow, stored: Option[(Long, Long)]): Unit = {
    clear()
    this.group = group
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
    try while (rows.next()) memory.push(rows.time, state.codec.buffer(rows.value))
    finally rows.close()
  }

  override def isEmpty: Boolean = { load(); memory.isEmpty }
  override def push(time: Long, partial: InternalRow): Unit = memory.push(time, partial)
  override def topTime: Long = { load(); memory.topTime }
  override def top: InternalRow = { load(); memory.top }
  override def pop(): Unit = { load(); memory.pop() }

  override def clear(): Unit = {
    memory.clear()
    storedPending = false
  }
}
