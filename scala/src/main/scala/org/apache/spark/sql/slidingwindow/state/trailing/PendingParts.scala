package org.apache.spark.sql.slidingwindow.state
package trailing

import java.util.{HashMap => JHashMap, TreeSet => JTreeSet}

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression, JoinedRow, SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.slidingwindow.codegen.ProjectionPool
import org.apache.spark.sql.slidingwindow.late.LateRows
import org.apache.spark.sql.types.LongType
import org.apache.spark.unsafe.Platform

/**
 * The input rows of streaming trailing windows that wait for the watermark, in Pending rows
 * ([[TrailingStateLayout]]) that hold parts. A part holds rows of one group, one after the other,
 * each as its time (8 bytes), its own `__seq` ([[PendingParts.seq]], 8), its length (4) and its
 * UnsafeRow bytes; its key holds the second of its earliest row (`__bucket`), that row's time
 * (`__time`) and the `__seq` of the part it came from: the micro-batch id in the high 32 bits and
 * the part's number in the task in the low ones (so that a micro-batch run again writes the same
 * keys).
 *
 * [[keep]] writes a micro-batch's input rows in a part per group and span of time: the rows due
 * now, then spans as long as the watermark's advance in this micro-batch ([[spanOf]]), the time
 * the next micro-batch is likely to make due, counted from the eviction watermark. So a group
 * that gets a row every few seconds has a part or two per micro-batch, not a part per row, and a
 * part is mostly due at once. Rows at or before the watermark for late rows are dropped (counted)
 * and rows without a time left out. A task holds a micro-batch's parts in memory until its input
 * ends, or until they take `partBytes`: then it writes them, and goes on with new parts.
 *
 * Every row waiting is after the watermark for late rows, the eviction watermark of the
 * micro-batch before, so the parts with rows due are in the buckets from its one to the eviction
 * watermark's: [[readStep]] reads them in ascending order, a prefix scan per bucket (or, when the
 * watermark jumped over more buckets than a scan of the whole store costs, those one scan finds),
 * a few buckets at a time, and hands on the rows due among them. A part may hold rows past its
 * bucket: a step hands on only the rows before the next bucket it did not read, since a part not
 * read yet may hold earlier rows; it writes the others back, those due in a part per group and
 * second (read by a later step of this micro-batch) and those not due in a part per span, keyed by
 * their own earliest rows. A part is thus read again only while the watermark is inside it, and
 * rewritten once per span it crosses. [[finish]] removes the parts read and writes those, once the
 * rows handed on are emitted.
 *
 * The times of the rows it keeps and reads that wait after it ([[waitingRead]]), with the earliest
 * time a row it did not read may have ([[notReadFrom]]), bound the rows waiting ([[WaitingTimes]]).
 */
private[slidingwindow] final class PendingParts private[trailing] (store: StateStore, layout: TrailingStateLayout,
    counters: StateCounters, lateMicros: Long, evictionMicros: Long, limits: PendingLimits) {
  import PendingParts._
  import TrailingStateLayout._
  import TrailingRowKind._

  private val rows: TrailingStateLayout.Rows = layout.rows()
  private val family: String = layout.dataFamily
  /** The span of the parts of rows not due: how far this micro-batch moved the watermark. */
  private val span: Long = spanOf(lateMicros, evictionMicros)

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
   * row waiting is after the watermark for late rows, and in a part of a bucket after those read.
   */
  def notReadFrom: Long =
    readTo.map(last => math.max(firstTimeOf(last + 1), evictionMicros + 1)).getOrElse(lateMicros + 1)

  /** The slot of a part of rows at `t`: -1 for rows due now, then spans of `span` after the eviction watermark. */
  private def slotOf(t: Long, span: Long): Long =
    if (t <= evictionMicros) -1L
    else if (span == Unbounded) 0L
    else {
      val after = t - evictionMicros - 1
      if (after < 0) Long.MaxValue else after / span
    }

  /**
   * Keeps a micro-batch's input rows; `time` is the ORDER BY expression, bound to them. Those at
   * or before the watermark for late rows go to `late`.
   */
  def keep(input: Iterator[InternalRow], time: Expression, batchId: Long, late: LateRows): Unit = {
    val keyOf = layout.keyOfInput(time)
    val toUnsafe = ProjectionPool.unsafe(layout.input.zipWithIndex.map { case (a, i) =>
      BoundReference(i, a.dataType, a.nullable) })
    // The parts open, by their group and slot (a key with the slot as __bucket, __time and __seq 0).
    val parts = new JHashMap[UnsafeRow, Part]
    var buffered = 0L
    var partNumber = 0L
    def write(): Unit = {
      parts.forEach { (key, part) =>
        // The map is cleared next: its key becomes the part's state key.
        put(key, part, seq(batchId, part.number))
      }
      parts.clear()
      buffered = 0L
    }
    eachKept(input, keyOf, layout.timeOrdinal, batchId, lateMicros, late) { (row, key) =>
      val t = key.getLong(layout.timeOrdinal)
      val rowSeq = key.getLong(layout.seqOrdinal)
      key.setLong(BucketOrdinal, slotOf(t, span))
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
      if (buffered >= limits.partBytes) write()
    }
    write()
  }

  /** Writes `part` at `key` (changed in place): the bucket and time of its earliest row, and `seq`. */
  private def put(key: UnsafeRow, part: Part, seq: Long): Unit = {
    key.setLong(BucketOrdinal, bucketOf(part.earliest))
    key.setLong(layout.timeOrdinal, part.earliest)
    key.setLong(layout.seqOrdinal, seq)
    StateStoreApi.put(store, key, rows.bytesValue(part.bytes()), family)
    counters.written += 1
    counters.created += 1
  }

  /**
   * The buckets that may hold rows due, ascending: those between the two watermarks', or, after a
   * jump over more than `bucketScans` of them, those up to the eviction watermark's that one scan
   * of the store finds parts in. Read when the first step is.
   */
  private lazy val buckets: DueBuckets = {
    val (first, last) = (bucketOf(lateMicros), bucketOf(evictionMicros))
    readTo = Some(last)
    if (lateMicros != Long.MinValue && last - first < limits.bucketScans) new DueBuckets(first, last, null)
    else {
      val found = new JTreeSet[java.lang.Long]
      val all = StateStoreApi.iterator(store, family)
      try all.foreach { pair =>
        if (pair.key.getInt(0) == Pending.id && pair.key.getLong(BucketOrdinal) <= last) found.add(pair.key.getLong(BucketOrdinal))
      } finally all.close()
      new DueBuckets(first, last, found)
    }
  }

  /** Whether a bucket with rows due is left to read. */
  def moreDue: Boolean = buckets.hasNext

  private val read = mutable.ArrayBuffer.empty[UnsafeRow]
  private val written = mutable.ArrayBuffer.empty[(UnsafeRow, Part)]

  /**
   * Reads the buckets that come next, at least one, until their parts take `stepBytes` (their
   * bytes and `rowOverhead` per row), and gives `due` the rows due among them that are before
   * every row of the buckets not read yet, in no order. [[finish]] removes the parts read, and
   * writes those of their other rows, once the rows handed on are emitted.
   */
  def readStep(stepBytes: Long, rowOverhead: Long, due: Due): Unit = {
    val parts = mutable.ArrayBuffer.empty[(UnsafeRow, Array[Byte])]
    var cost = 0L
    while (cost < stepBytes && buckets.hasNext) {
      val scan = StateStoreApi.prefixScan(store, rows.kindPrefix(Pending, buckets.take()), family)
      try scan.foreach { pair =>
        counters.read += 1
        val bytes = rows.bytesOf(pair.value)
        cost += bytes.length + rowsIn(bytes) * rowOverhead
        parts += ((pair.key.copy(), bytes))
      } finally scan.close()
    }
    // Every part not read has its earliest row in a later bucket.
    val before = if (buckets.hasNext) firstTimeOf(buckets.head) else Long.MaxValue
    parts.foreach { case (key, bytes) => hand(key, bytes, before, due) }
  }

  /**
   * Gives `due` the rows of a part due before `before`; the part is then rewritten without them:
   * its other rows due in a part per second, its rows not due in a part per span. A part of rows
   * none due (the eviction watermark's second) stays as it is.
   */
  private def hand(key: UnsafeRow, bytes: Array[Byte], before: Long, due: Due): Unit = {
    val touched = key.getLong(layout.timeOrdinal) <= evictionMicros
    var dueLater: mutable.LongMap[Part] = null // by second
    var notDue: mutable.LongMap[Part] = null // by span
    var at = 0
    while (at < bytes.length) {
      val offset = Platform.BYTE_ARRAY_OFFSET + at
      val t = Platform.getLong(bytes, offset)
      val length = Platform.getInt(bytes, offset + 16)
      if (t <= evictionMicros && t < before) {
        val row = new UnsafeRow(layout.numInputFields)
        row.pointTo(bytes, offset + Header, length)
        due(key, t, Platform.getLong(bytes, offset + 8), row)
      } else {
        waits(t)
        if (touched) {
          val part = if (t <= evictionMicros) {
            if (dueLater == null) dueLater = new mutable.LongMap[Part]
            dueLater.getOrElseUpdate(bucketOf(t), new Part(0L))
          } else {
            if (notDue == null) notDue = new mutable.LongMap[Part]
            notDue.getOrElseUpdate(slotOf(t, span), new Part(0L))
          }
          part.copy(t, bytes, offset, Header + length)
        }
      }
      at += Header + length
    }
    if (touched) {
      read += key
      if (dueLater != null) dueLater.values.foreach { part =>
        written += ((key.copy(), part))
        buckets.add(bucketOf(part.earliest))
      }
      if (notDue != null) notDue.values.foreach(part => written += ((key.copy(), part)))
    }
  }

  /**
   * Removes the parts [[readStep]] read since the last call, once their rows due are emitted, and
   * writes the parts of their other rows.
   */
  def finish(): Unit = {
    read.foreach(key => StateStoreApi.remove(store, key, family))
    counters.removed += read.length
    read.clear()
    written.foreach { case (key, part) => put(key, part, key.getLong(layout.seqOrdinal)) }
    written.clear()
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

  /** A span without an end: the watermark did not move, so one part per group. */
  val Unbounded: Long = Long.MaxValue

  /**
   * The span of time a part of rows not due covers: the watermark's advance in this micro-batch,
   * at least a bucket; unbounded where it did not move (as in a query's first micro-batch).
   */
  def spanOf(lateMicros: Long, evictionMicros: Long): Long =
    if (lateMicros == Long.MinValue || evictionMicros <= lateMicros) Unbounded
    else {
      val advance = evictionMicros - lateMicros // negative: it overflowed
      if (advance < 0) Unbounded else math.max(TrailingStateLayout.BucketMicros, advance)
    }

  /**
   * Gives `kept` each input row to keep with its key (`keyOf` over the input row followed by its
   * `__seq`, [[seq]]), but for those without a time (left out) and those at or before the
   * watermark for late rows (dropped: given to `late`). The key is the projection's reused row.
   */
  def eachKept(input: Iterator[InternalRow], keyOf: UnsafeProjection, timeOrdinal: Int, batchId: Long,
      lateMicros: Long, late: LateRows)(kept: (InternalRow, UnsafeRow) => Unit): Unit = {
    val seqRow = new SpecificInternalRow(Seq(LongType)) // a long field: setLong does not box
    val withSeq = new JoinedRow
    var index = 0L
    input.foreach { row =>
      seqRow.setLong(0, seq(batchId, index))
      index += 1
      val key = keyOf(withSeq(row, seqRow))
      if (!key.isNullAt(timeOrdinal)) {
        val t = key.getLong(timeOrdinal)
        if (t <= lateMicros) late.add(row, t)
        else kept(row, key)
      }
    }
  }

  /**
   * The `__seq` of the `index`th input row (or part) of a task in micro-batch `batchId`: the
   * micro-batch id in the high 32 bits, the index in the low ones, so that a micro-batch run again
   * writes the same keys.
   */
  def seq(batchId: Long, index: Long): Long = (batchId << 32) | (index & 0xffffffffL)

  /** A row's bytes in a part before its UnsafeRow's: time, seq, length. */
  val Header = 20

  /** The rows in a part's bytes. */
  private def rowsIn(bytes: Array[Byte]): Int = {
    var n = 0
    var at = 0
    while (at < bytes.length) {
      at += Header + Platform.getInt(bytes, Platform.BYTE_ARRAY_OFFSET + at + 16)
      n += 1
    }
    n
  }

  /**
   * The heap a part takes besides its rows and key bytes: its map entry, its key and buffer
   * objects and its buffer's spare room (a rough count, so that `partBytes` bounds the heap).
   */
  private val PartOverhead = 160

  /**
   * The buckets of one micro-batch's rows due, ascending: `first` to `last` one by one, or those
   * `found` holds (null: all); a step may add the bucket of a part it wrote back, later than those
   * taken and not after `last`.
   */
  private final class DueBuckets(first: Long, last: Long, found: JTreeSet[java.lang.Long]) {
    private var next = first
    def hasNext: Boolean = if (found == null) next <= last else !found.isEmpty
    def head: Long = if (found == null) next else found.first()
    def take(): Long =
      if (found != null) found.pollFirst()
      else {
        next += 1
        next - 1
      }
    def add(bucket: Long): Unit = if (found != null) found.add(bucket)
  }

  /** The rows of a part, as its `__bytes` hold them; `number`: the part's in the task. */
  private final class Part(val number: Long) {
    private var buffer = new Array[Byte](0)
    private var size = 0
    /** The time of its earliest row. */
    var earliest: Long = Long.MaxValue

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
      if (time < earliest) earliest = time
    }

    /** A row at `time`: `length` bytes of a part, from `offset` in `base`. */
    def copy(time: Long, base: AnyRef, offset: Long, length: Int): Unit = {
      ensure(length)
      Platform.copyMemory(base, offset, buffer, Platform.BYTE_ARRAY_OFFSET + size, length)
      size += length
      if (time < earliest) earliest = time
    }

    def bytes(): Array[Byte] = if (size == buffer.length) buffer else java.util.Arrays.copyOf(buffer, size)
  }
}
