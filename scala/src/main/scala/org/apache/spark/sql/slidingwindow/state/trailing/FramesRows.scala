package org.apache.spark.sql.slidingwindow.state
package trailing

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * The rows of streaming trailing windows' state that hold the groups' frames
 * ([[TrailingStateLayout]]): a group's Frames row and the Chunk rows of its frames' stacks, as
 * bytes whose layout the frames kept in the state own
 * ([[org.apache.spark.sql.slidingwindow.stored.StoredFrames]]). Every row read, written, created
 * or removed is counted in the state's ledger, once.
 */
final class FramesRows private[trailing] (store: StateStore, layout: TrailingStateLayout,
    counters: StateCounters, summary: TrailingSummary) {
  import TrailingRowKind._

  private val rows = layout.rows()
  private val family = layout.dataFamily

  /** The state group of the partition keys of a group's rows (a keyless stream's `__group` = 0). */
  def group(partitionKeys: UnsafeRow): UnsafeRow = rows.group(partitionKeys)

  /** The bytes of the group's Frames row, or null: it has none. */
  def get(group: UnsafeRow): Array[Byte] = {
    val value = StateStoreApi.get(store, rows.key(Frames, group, 0L, 0L), family)
    if (value == null) null
    else {
      counters.read += 1
      rows.bytesOf(value)
    }
  }

  /**
   * Writes the group's Frames row (`existed`: it had one); `newest` is the newest time its frames
   * hold, and no later row's frames reach any of it once the watermark passes `expiry`.
   */
  def put(group: UnsafeRow, bytes: Array[Byte], existed: Boolean, expiry: Long): Unit = {
    StateStoreApi.put(store, rows.key(Frames, group, 0L, 0L), rows.bytesValue(bytes), family)
    counters.written += 1
    if (!existed) counters.created += 1
    summary.noteExpiry(expiry)
  }

  /** Removes the group's Frames row. */
  def remove(group: UnsafeRow): Unit = {
    StateStoreApi.remove(store, rows.key(Frames, group, 0L, 0L), family)
    counters.removed += 1
  }

  /** Writes chunk `chunk` of the group's stack `stack`: `length` bytes of `bytes`. */
  def putChunk(group: UnsafeRow, stack: Int, chunk: Int, bytes: Array[Byte], length: Int): Unit = {
    StateStoreApi.put(store, rows.key(Chunk, group, stack, chunk),
      rows.bytesValue(java.util.Arrays.copyOf(bytes, length)), family)
    counters.written += 1
    counters.created += 1
  }

  /** Reads and removes chunk `chunk` of the group's stack `stack`. */
  def takeChunk(group: UnsafeRow, stack: Int, chunk: Int): Array[Byte] = {
    val key = rows.key(Chunk, group, stack, chunk)
    val value = StateStoreApi.get(store, key, family)
    if (value == null) throw new IllegalStateException(s"trailing windows state: chunk $chunk of stack $stack missing")
    val bytes = rows.bytesOf(value)
    StateStoreApi.remove(store, key, family)
    counters.read += 1
    counters.removed += 1
    bytes
  }

  /** Removes chunk `chunk` of the group's stack `stack`, unread. */
  def removeChunk(group: UnsafeRow, stack: Int, chunk: Int): Unit = {
    StateStoreApi.remove(store, rows.key(Chunk, group, stack, chunk), family)
    counters.removed += 1
  }

  /**
   * When the state may first hold a group whose frames no later row reaches (Long.MaxValue: none
   * that the Summary row knows of): [[sweep]] is only worth it from then.
   */
  def nextSweep: Long = summary.nextSweep

  /**
   * The groups whose frames no row after `eviction` reaches, each with its Frames row's bytes (for
   * the caller to remove with their chunks), found by a scan of the Frames rows; `expiryOf` reads
   * when a Frames row's group stops being reachable. The next sweep is then due when the first
   * group left stops being reachable, but not before `eviction` + `pause`: the scan runs at most
   * once per `pause` of event time.
   */
  def expired(eviction: Long, pause: Long)(expiryOf: Array[Byte] => Long): Seq[(UnsafeRow, Array[Byte])] = {
    val groupOf = layout.groupOfKey()
    val dead = scala.collection.mutable.ArrayBuffer.empty[(UnsafeRow, Array[Byte])]
    var alive = Long.MaxValue
    val frames = StateStoreApi.prefixScan(store, rows.kindPrefix(Frames, 0L), family)
    try frames.foreach { pair =>
      counters.read += 1
      val bytes = rows.bytesOf(pair.value)
      val expiry = expiryOf(bytes)
      if (expiry <= eviction) dead += ((groupOf(pair.key).copy(), bytes))
      else alive = math.min(alive, expiry)
    } finally frames.close()
    summary.swept(if (alive == Long.MaxValue) Long.MaxValue
      else math.max(alive, if (eviction > Long.MaxValue - pause) Long.MaxValue else eviction + pause))
    dead.toSeq
  }
}
