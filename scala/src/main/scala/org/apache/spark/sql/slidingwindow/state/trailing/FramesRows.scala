package org.apache.spark.sql.slidingwindow.state
package trailing

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * The rows of streaming trailing windows' state that hold the groups' frames
 * ([[TrailingStateLayout]]): a group's Frames row and the Chunk rows of its frames' stacks, as
 * bytes whose layout the frames kept in the state own
 * ([[org.apache.spark.sql.slidingwindow.stored.StoredFrames]]). Every row read, written, created
 * or removed is counted in the state's ledger, once.
 *
 * A group whose frames no later row reaches expires, as Flink's cleanup timer expires a key's
 * state: with a time index ([[TimeIndex]], RocksDB on Spark 4), each group with a Frames row has
 * one entry, at or before the time its frames stop being reachable, put when the row is created:
 * a micro-batch reads the entries due under its watermark, removes the groups that did expire and
 * moves the others' entries to their new time, so it reads no group that is not due. Without one,
 * the Summary row says when some group may have expired, and then the Frames rows are scanned.
 *
 * @param index the time index of the groups' expiry, in a time index arrangement
 */
final class FramesRows private[trailing] (store: StateStore, layout: TrailingStateLayout,
    counters: StateCounters, summary: TrailingSummary, index: Option[TimeIndex]) {
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
    index match {
      case Some(entries) => if (!existed) entries.put(expiry, group)
      case None => summary.noteExpiry(expiry)
    }
  }

  /** Removes the group's Frames row. */
  def remove(group: UnsafeRow): Unit = {
    StateStoreApi.remove(store, rows.key(Frames, group, 0L, 0L), family)
    counters.removed += 1
  }

  /**
   * The Chunk rows of the groups' stacks: a series per stack, its chunks numbered from 0, each
   * value's `__bytes` the chunk's elements.
   */
  private val chunks: ChunkStore = new ChunkStore {
    override def get(group: InternalRow, stack: Int, chunk: Long): UnsafeRow =
      StateStoreApi.get(store, rows.key(Chunk, group, stack, chunk), family)
    override def put(group: InternalRow, stack: Int, chunk: Long, value: UnsafeRow): Unit =
      StateStoreApi.put(store, rows.key(Chunk, group, stack, chunk), value, family)
    override def remove(group: InternalRow, stack: Int, chunk: Long): Unit =
      StateStoreApi.remove(store, rows.key(Chunk, group, stack, chunk), family)
  }

  /** Writes chunk `chunk` of the group's stack `stack`: `length` bytes of `bytes`. */
  def putChunk(group: UnsafeRow, stack: Int, chunk: Int, bytes: Array[Byte], length: Int): Unit = {
    chunks.put(group, stack, chunk, rows.bytesValue(java.util.Arrays.copyOf(bytes, length)))
    counters.written += 1
    counters.created += 1
  }

  /** Reads and removes chunk `chunk` of the group's stack `stack`. */
  def takeChunk(group: UnsafeRow, stack: Int, chunk: Int): Array[Byte] = {
    val value = chunks.get(group, stack, chunk)
    if (value == null) throw new IllegalStateException(s"trailing windows state: chunk $chunk of stack $stack missing")
    val bytes = rows.bytesOf(value)
    chunks.remove(group, stack, chunk)
    counters.read += 1
    counters.removed += 1
    bytes
  }

  /** Removes chunk `chunk` of the group's stack `stack`, unread. */
  def removeChunk(group: UnsafeRow, stack: Int, chunk: Int): Unit = {
    chunks.remove(group, stack, chunk)
    counters.removed += 1
  }

  /**
   * When the state may first hold a group whose frames no later row reaches (Long.MaxValue:
   * none): [[expire]] is only worth it from then. With a time index, its first entry (one seek).
   */
  def nextExpiry: Long = index.map(_.first).getOrElse(summary.nextSweep)

  /**
   * Gives `remove` each group whose frames no row after `eviction` reaches, with its Frames row's
   * bytes, for it to remove them with their chunks; `expiryOf` reads when a Frames row's group
   * stops being reachable. With a time index, the groups of the entries due, each entry moved to
   * its group's expiry where that is later. Without one, a scan of the Frames rows, the dead
   * collected first (the default provider keeps its whole state in memory anyway); the next scan
   * is then due when the first group left stops being reachable, but not before `eviction` +
   * `pause`: the scan runs at most once per `pause` of event time.
   */
  def expire(eviction: Long, pause: Long)(expiryOf: Array[Byte] => Long)(remove: (UnsafeRow, Array[Byte]) => Unit): Unit =
    index match {
      case Some(entries) => expireIndexed(entries, eviction, expiryOf, remove)
      case None => expireScanned(eviction, pause, expiryOf, remove)
    }

  private def expireIndexed(entries: TimeIndex, eviction: Long, expiryOf: Array[Byte] => Long,
      remove: (UnsafeRow, Array[Byte]) => Unit): Unit = {
    val due = entries.entries()
    try {
      var more = true
      while (more && due.hasNext) {
        val key = due.next().key
        if (entries.timeOf(key) > eviction) more = false
        else {
          counters.read += 1
          val g = entries.groupOfKey(key).copy()
          entries.removeKey(key)
          val bytes = get(g)
          if (bytes != null) {
            val expiry = expiryOf(bytes)
            // Later than the watermark: past the entries this scan reads.
            if (expiry <= eviction) remove(g, bytes) else entries.put(expiry, g)
          }
        }
      }
    } finally due.close()
  }

  private def expireScanned(eviction: Long, pause: Long, expiryOf: Array[Byte] => Long,
      remove: (UnsafeRow, Array[Byte]) => Unit): Unit = {
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
    dead.foreach { case (g, bytes) => remove(g, bytes) }
  }
}
