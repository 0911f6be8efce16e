package org.apache.spark.sql.slidingwindow.stored

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.slidingwindow.aggregation.{PartialStack, RowStack}
import org.apache.spark.sql.slidingwindow.state.sliding.{GroupRows, RowCursor, WindowStateCodec}
import org.apache.spark.sql.slidingwindow.state.sliding.StateRowKind.Suffix
import org.apache.spark.sql.slidingwindow.windows.LongQueue

/**
 * The front of a group's Two-Stacks queue between micro-batches: its elements are the group's
 * Suffix rows, the oldest on top, read one at a time as the queue pops them. A flip (only when
 * the stored front is used up) builds the new front in memory; [[persist]] deletes the popped
 * rows and writes the new front back. Part of the [[StoredQueue]], [[open]]ed for each group.
 */
private[slidingwindow] final class StoredQueueFront(rows: GroupRows, codec: WindowStateCodec, memory: RowStack)
  extends PartialStack {
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
    cursor = rows.rows(group, Suffix, Long.MinValue, Long.MaxValue)
    advance()
  }

  private def advance(): Unit = {
    onStored = cursor.next()
    storedTop = if (onStored) cursor.buffer(codec) else null
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
    while (popped.nonEmpty) rows.remove(group, Suffix, popped.removeHead())
    while (!memory.isEmpty) {
      rows.insert(group, Suffix, memory.topTime, codec.partialValue(memory.top))
      memory.pop()
    }
    clear()
  }
}
