package org.apache.spark.sql.slidingwindow.state
package trailing

import java.util.{HashMap => JHashMap}

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression, JoinedRow, SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.codegen.ProjectionPool
import org.apache.spark.sql.types.LongType
import org.apache.spark.unsafe.Platform

/**
 * The input rows of streaming trailing windows that wait for the watermark, in Pending rows
 * ([[TrailingStateLayout]]) that hold parts: a part holds the rows of one group and bucket (a
 * second of their time) that one micro-batch kept, at (0, seq) with `__seq` the micro-batch id in
 * the high 32 bits and the part's number in the task in the low ones (so that a micro-batch run
 * again writes the same keys); its `__bytes` are its rows one after the other, each as its time
 * (8 bytes), its own `__seq` ([[PendingParts.seq]], 8), its length (4) and its UnsafeRow bytes. A
 * micro-batch thus writes a state row per group and bucket it has rows for, not one per row.
 *
 * In a micro-batch, [[keep]] writes the input rows, but for those at or before the watermark for
 * late rows (dropped, counted) and those without a time; [[readBucket]] reads the rows at or
 * before the eviction watermark of one of the [[dueBuckets]]; [[finish]], once they are emitted,
 * removes the parts they emptied and writes again the one bucket's with rows not due yet. A task
 * holds a micro-batch's parts in memory until its input ends, or until they take `partBytes`
 * (their rows' bytes and what each part costs besides): then it writes them, and goes on with
 * new parts.
 *
 * Every row waiting is after the watermark for late rows, the eviction watermark of the
 * micro-batch before, so the rows due are in the buckets from its one to the eviction
 * watermark's: a prefix scan of each reads them, unless the watermark jumped over more buckets
 * than a scan of the whole store costs ([[PendingParts.MaxBucketScans]]): then one scan finds the
 * buckets that hold parts, and a prefix scan of each reads them. Buckets are disjoint spans of
 * time, so the caller reads them in order, a few at a time, and never holds every row due. The
 * times of the rows it keeps and reads that wait after it ([[waitingRead]]), with the earliest time
 * a row it did not read may have ([[notReadFrom]]), bound the rows waiting ([[WaitingTimes]]).
 */
private[slidingwindow] final class PendingParts private[trailing] (store: StateStore, layout: TrailingStateLayout,
    counters: StateCounters, lateMicros: Long, evictionMicros: Long, partBytes: Long) {
  import PendingParts._
  import TrailingStateLayout._
  import TrailingRowKind._

  private val rows: TrailingStateLayout.Rows = layout.rows()
  private val family: String = layout.dataFamily

  var droppedLateRows = 0L

  /** The times of the rows kept or read that are not due (bounds). */
  var waitingRead: WaitingTimes = WaitingTimes.none
  private def waits(t: Long): Unit =
    if (t > evictionMicros && (t < waitingRead.earliest || t > waitingRead.latest)) {
      waitingRead = waitingRead.union(WaitingTimes.of(t))
    }
  // Which rows were read: none yet, or those of the buckets up to the eviction watermark's.
  private var readTo: Option[Long] = None

  /**
   * The earliest time a row waiting that this micro-batch did not keep or read may have: every
   * row waiting is after the watermark for late rows, and after the buckets read.
   */
  def notReadFrom: Long =
    readTo.map { last =>
      val next = last + 1
      if (next > 0) math.max(next * BucketMicros, evictionMicros + 1) else evictionMicros + 1
    }.getOrElse(lateMicros + 1)

  private val emptied = mutable.ArrayBuffer.empty[UnsafeRow]
  private val rest = mutable.ArrayBuffer.empty[(UnsafeRow, Array[Byte])]

  /** Keeps a micro-batch's input rows; `time` is the ORDER BY expression, bound to them. */
  def keep(input: Iterator[InternalRow], time: Expression, batchId: Long): Unit = {
    val keyOf = layout.keyOfInput(time)
    val toUnsafe = ProjectionPool.unsafe(layout.input.zipWithIndex.map { case (a, i) =>
      BoundReference(i, a.dataType, a.nullable) })
    // The parts open, by their group and bucket (a key with __time and __seq 0, the part's own).
    val parts = new JHashMap[UnsafeRow, Part]
    var buffered = 0L
    var partNumber = 0L
    def write(): Unit = {
      parts.forEach { (key, part) =>
        // The map is cleared next: its key becomes the part's state key.
        key.setLong(layout.seqOrdinal, seq(batchId, part.number))
        StateStoreApi.put(store, key, rows.bytesValue(part.bytes()), family)
        counters.written += 1
        counters.created += 1
      }
      parts.clear()
      buffered = 0L
    }
    droppedLateRows += eachKept(input, keyOf, layout.timeOrdinal, batchId, lateMicros) { (row, key) =>
      val t = key.getLong(layout.timeOrdinal)
      val rowSeq = key.getLong(layout.seqOrdinal)
      key.setLong(layout.timeOrdinal, 0L)
      key.setLong(layout.seqOrdinal, 0L)
      var part = parts.get(key)
      if (part == null) {
        part = new Part(partNumber)
        partNumber += 1
        parts.put(key.copy(), part)
        // With many groups a part holds a row or two: its key, map entry and buffer are most of
        // the heap the parts take.
        buffered += PartOverhead + key.getSizeInBytes
      }
      val u = row match {
        case u: UnsafeRow => u
        case other => toUnsafe(other)
      }
      part.add(t, rowSeq, u)
      waits(t)
      buffered += Header + u.getSizeInBytes
      if (buffered >= partBytes) write()
    }
    write()
  }

  /**
   * The buckets that may hold rows due, ascending: those between the two watermarks', or, after a
   * jump over more than [[PendingParts.MaxBucketScans]] of them, those up to the eviction
   * watermark's that one scan of the store finds parts in (a long per bucket).
   */
  def dueBuckets(): Iterator[Long] = {
    val (first, last) = (bucketOf(lateMicros), bucketOf(evictionMicros))
    readTo = Some(last)
    if (lateMicros != Long.MinValue && last - first < MaxBucketScans) {
      Iterator.range(0, (last - first + 1).toInt).map(first + _)
    } else {
      val found = new mutable.LongMap[Unit]
      val all = StateStoreApi.iterator(store, family)
      try all.foreach { pair =>
        if (pair.key.getInt(0) == Pending.id && pair.key.getLong(1) <= last) found.update(pair.key.getLong(1), ())
      } finally all.close()
      found.keys.toArray.sorted.iterator
    }
  }

  /**
   * Gives `due` every row due of one bucket, in no order; returns the bytes of the parts read.
   * [[finish]] removes them once the rows are emitted. Only the eviction watermark's bucket has
   * rows not due: a part of it is written again with those.
   */
  def readBucket(bucket: Long, due: Due): Long = {
    var read = 0L
    val pending = StateStoreApi.prefixScan(store, rows.kindPrefix(Pending, bucket), family)
    try pending.foreach { pair =>
      counters.read += 1
      val key = pair.key
      val bytes = rows.bytesOf(pair.value)
      read += bytes.length
      var notDue: Part = null
      var at = 0
      while (at < bytes.length) {
        val offset = Platform.BYTE_ARRAY_OFFSET + at
        val t = Platform.getLong(bytes, offset)
        val length = Platform.getInt(bytes, offset + 16)
        if (t <= evictionMicros) {
          val row = new UnsafeRow(layout.numInputFields)
          row.pointTo(bytes, offset + Header, length)
          due(key, t, Platform.getLong(bytes, offset + 8), row)
        } else {
          waits(t)
          if (notDue == null) notDue = new Part(0L)
          notDue.copy(bytes, offset, Header + length)
        }
        at += Header + length
      }
      if (notDue == null) emptied += key.copy()
      else rest += ((key.copy(), notDue.bytes()))
    } finally pending.close()
    read
  }

  /**
   * Removes the parts [[readBucket]] read since the last call, once their rows are emitted, and
   * writes again those with rows not due.
   */
  def finish(): Unit = {
    emptied.foreach(key => StateStoreApi.remove(store, key, family))
    counters.removed += emptied.length
    emptied.clear()
    rest.foreach { case (key, bytes) => StateStoreApi.put(store, key, rows.bytesValue(bytes), family) }
    counters.written += rest.length
    rest.clear()
  }
}

private[slidingwindow] object PendingParts {
  /** Takes a row due. */
  trait Due {
    /**
     * @param key  the key of its state row, whose partition key columns are the row's group
     *             (valid during the call)
     * @param time its time, microseconds
     * @param seq  its `__seq`: rows of one group and time are emitted in its order
     * @param row  the input row, valid until [[PendingParts.finish]]
     */
    def apply(key: UnsafeRow, time: Long, seq: Long, row: InternalRow): Unit
  }

  /** The most buckets of Pending rows a micro-batch scans one by one, rather than the whole store. */
  val MaxBucketScans = 4096L

  /**
   * Gives `kept` each input row to keep with its key (`keyOf` over the input row followed by its
   * `__seq`, [[seq]]), but for those without a time (left out) and those at or before the
   * watermark for late rows (dropped); returns the rows dropped. The key is the projection's
   * reused row.
   */
  def eachKept(input: Iterator[InternalRow], keyOf: UnsafeProjection, timeOrdinal: Int, batchId: Long,
      lateMicros: Long)(kept: (InternalRow, UnsafeRow) => Unit): Long = {
    val seqRow = new SpecificInternalRow(Seq(LongType)) // a long field: setLong does not box
    val withSeq = new JoinedRow
    var index = 0L
    var dropped = 0L
    input.foreach { row =>
      seqRow.setLong(0, seq(batchId, index))
      index += 1
      val key = keyOf(withSeq(row, seqRow))
      if (!key.isNullAt(timeOrdinal)) {
        if (key.getLong(timeOrdinal) <= lateMicros) dropped += 1
        else kept(row, key)
      }
    }
    dropped
  }

  /**
   * The `__seq` of the `index`th input row (or part) of a task in micro-batch `batchId`: the
   * micro-batch id in the high 32 bits, the index in the low ones, so that a micro-batch run again
   * writes the same keys.
   */
  def seq(batchId: Long, index: Long): Long = (batchId << 32) | (index & 0xffffffffL)

  /** A row's bytes in a part before its UnsafeRow's: time, seq, length. */
  val Header = 20

  /**
   * The heap a part takes besides its rows and key bytes: its map entry, its key and buffer
   * objects and its buffer's spare room (a rough count, so that `partBytes` bounds the heap).
   */
  private val PartOverhead = 160

  /** The rows of a part, as its `__bytes` hold them; `number`: the part's in the task. */
  private final class Part(val number: Long) {
    private var buffer = new Array[Byte](0)
    private var size = 0

    private def ensure(more: Int): Unit = if (size + more > buffer.length) {
      buffer = java.util.Arrays.copyOf(buffer, math.max(2 * buffer.length, size + more))
    }

    def add(time: Long, seq: Long, row: UnsafeRow): Unit = {
      val length = row.getSizeInBytes
      ensure(Header + length)
      val at = Platform.BYTE_ARRAY_OFFSET + size
      Platform.putLong(buffer, at, time)
      Platform.putLong(buffer, at + 8, seq)
      Platform.putInt(buffer, at + 16, length)
      row.writeToMemory(buffer, at + Header)
      size += Header + length
    }

    /** `length` bytes of a part's rows, from `offset` in `base`. */
    def copy(base: AnyRef, offset: Long, length: Int): Unit = {
      ensure(length)
      Platform.copyMemory(base, offset, buffer, Platform.BYTE_ARRAY_OFFSET + size, length)
      size += length
    }

    def bytes(): Array[Byte] = if (size == buffer.length) buffer else java.util.Arrays.copyOf(buffer, size)
  }

  /**
   * Internal, for tests: the bytes of rows a task holds in parts before it writes them (by default
   * [[DefaultPartBytes]]), so that small streams write a group's rows of one bucket in several parts.
   */
  val partBytesKey = "spark.sql.slidingWindow.trailingWindows.state.partBytes"
  val DefaultPartBytes: Long = 16L << 20

  def partBytes(conf: SQLConf): Long = conf.getConfString(partBytesKey, DefaultPartBytes.toString).toLong
}
