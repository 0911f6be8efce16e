package org.apache.spark.sql.slidingwindow.state
package sliding

import java.lang.ref.SoftReference
import java.util.{HashMap => JHashMap, LinkedHashMap => JLinkedHashMap}

import org.apache.spark.network.util.JavaUtils
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStoreId
import org.apache.spark.sql.internal.SQLConf

/**
 * State format 2 with a time index (RocksDB): the group records of a partition's store as the
 * last micro-batch that committed it on this executor left them, so that the next one, which
 * Spark schedules where the store is loaded while it can, reads a group's record from memory
 * instead of from RocksDB ([[GroupRecordSession.open]]). Reading a record was about a fifth of a
 * micro-batch's state work (docs/performance.md).
 *
 * A cached record is used exactly when it is what the store holds: each commit writes a new
 * random token into the store ([[CommitRow]]) and publishes its task's records under it
 * ([[publish]]), and a task takes them ([[take]]) only if the version it opened holds that token
 * (docs/state-format.md, section "Invariants", 11). Any other commit of the partition (on another
 * executor, by a run of the query before a restart, by another attempt of the task) wrote another
 * token. No other task sees the records a task took (a speculative copy of it starts without
 * them); a task that fails or aborts drops them.
 *
 * Memory: the records a task holds, and those published in the executor, are bounded by
 * `maxBytes` ([[maxBytesKey]]); the partitions used least recently go first, a task whose
 * records outgrow the bound stops caching, and the published records are softly referenced, so
 * that the JVM reclaims them before it runs out of memory (the partitions of a query that
 * stopped are not otherwise forgotten).
 */
private[slidingwindow] final class RecordCache private (maxBytes: Long) {
  import RecordCache.EntryBytes

  /** The token the task writes into the store before it commits, and publishes these records under. */
  val token: Long = RecordCache.newToken()

  private var records = new JHashMap[UnsafeRow, UnsafeRow]
  private var bytes = 0L
  private var enabled = maxBytes > 0

  def usedBytes: Long = bytes

  /** The value of the record of `key` (the store's key of a group's record), or null. */
  def get(key: UnsafeRow): UnsafeRow = if (enabled) records.get(key) else null

  /** Caches the value of a record (both rows are kept as they are: pass copies). */
  def put(key: UnsafeRow, value: UnsafeRow): Unit = if (enabled) {
    val replaced = records.put(key, value)
    bytes += value.getSizeInBytes
    if (replaced != null) bytes -= replaced.getSizeInBytes
    else bytes += key.getSizeInBytes + EntryBytes
    if (bytes > maxBytes) disable()
  }

  def remove(key: UnsafeRow): Unit = if (enabled) {
    val removed = records.remove(key)
    if (removed != null) bytes -= removed.getSizeInBytes + key.getSizeInBytes + EntryBytes
  }

  private def disable(): Unit = {
    enabled = false
    records = new JHashMap[UnsafeRow, UnsafeRow]
    bytes = 0L
  }

  /** Whether the cache holds every record this task read or wrote. */
  def complete: Boolean = enabled
}

private[slidingwindow] object RecordCache {
  /** Internal, for tuning (docs/development.md, "Internal settings"): the cache's bytes per executor. */
  val maxBytesKey = "spark.sql.slidingWindow.state.recordCache.maxBytes"

  /** Without [[maxBytesKey]]: a tenth of the executor's heap. */
  val DefaultHeapFraction = 10

  // What a cached record costs beside its key's and value's bytes, on a 64-bit JVM with compressed
  // pointers: two UnsafeRows (about 40 bytes each), two array headers (16), the map's node (32)
  // and its slot in the table.
  private val EntryBytes = 160L

  /**
   * The bound the session sets (a byte size: `256m`; a bare number is bytes), or -1: a tenth of
   * each executor's heap. 0 turns the cache off.
   */
  def maxBytes(conf: SQLConf): Long = conf.getConfString(maxBytesKey, null) match {
    case null => -1L
    case size => JavaUtils.byteStringAsBytes(size)
  }

  private def bound(maxBytes: Long): Long =
    if (maxBytes >= 0) maxBytes else Runtime.getRuntime.maxMemory / DefaultHeapFraction

  private final class Published(val cache: SoftReference[RecordCache], val token: Long, val bytes: Long)

  // By partition, least recently published first.
  private val published = new JLinkedHashMap[StateStoreId, Published]
  private var publishedBytes = 0L

  /**
   * The records of the store `id` if the version a task opened holds `token` (a token of 0: none,
   * as a store no commit of this version wrote), else an empty cache; either way, the task's own.
   */
  def take(id: StateStoreId, token: Long, maxBytes: Long): RecordCache = {
    val limit = bound(maxBytes)
    val records = synchronized {
      val entry = published.remove(id)
      if (entry == null) null
      else {
        publishedBytes -= entry.bytes
        if (token != 0L && entry.token == token) entry.cache.get else null
      }
    }
    val cache = new RecordCache(limit)
    if (records != null && records.bytes <= limit) { // only complete caches are published
      cache.records = records.records
      cache.bytes = records.bytes
    }
    cache
  }

  /** A random token, never 0 (a store without one). */
  private def newToken(): Long = {
    var token = 0L
    while (token == 0L) token = java.util.concurrent.ThreadLocalRandom.current().nextLong()
    token
  }

  /** Publishes the records a task's store left once it committed, under the token it wrote. */
  def publish(id: StateStoreId, cache: RecordCache, maxBytes: Long): Unit = if (cache.complete) {
    val limit = bound(maxBytes)
    synchronized {
      val previous = published.remove(id)
      if (previous != null) publishedBytes -= previous.bytes
      published.put(id, new Published(new SoftReference(cache), cache.token, cache.usedBytes))
      publishedBytes += cache.usedBytes
      val eldest = published.entrySet.iterator
      while (publishedBytes > limit && eldest.hasNext) {
        publishedBytes -= eldest.next().getValue.bytes
        eldest.remove()
      }
    }
  }

  /** The bytes of the records published in this JVM (for the tests). */
  def publishedBytesForTests: Long = synchronized(publishedBytes)
}
