package org.apache.spark.sql.slidingwindow.state
package sliding

import scala.collection.mutable
import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{DataType, LongType, StructField, StructType}

/**
 * The chunks of a large group's record ([[RecordChunks]]) on an in-memory store: rows moved out
 * of the record and read back through the cursor, loaded as the cursor or a write reaches them,
 * deleted once loaded unless written again; checked after every simulated visit against the rows
 * as a sorted map holds them, and against what the store holds.
 */
class RecordChunksSuite extends AnyFunSuite {
  private val layout = WindowStateLayout(2, Seq(AttributeReference("k", LongType, nullable = false)()),
    StructType(Seq(StructField("n", LongType, nullable = true))))
  private val codec = layout.codec()
  private val group = UnsafeProjection.create(Array[DataType](LongType))(InternalRow(7L)).copy()
  private val kinds = Seq(StateRowKind.Partial, StateRowKind.Suffix)

  /** Chunk rows by (kind, first time), as the state store would hold them. */
  private final class MemoryChunks extends ChunkStore {
    val rows = mutable.HashMap.empty[(StateRowKind, Long), UnsafeRow]
    override def get(group: InternalRow, series: Int, first: Long): UnsafeRow =
      rows.get((StateRowKind.of(series), first)).orNull
    override def put(group: InternalRow, series: Int, first: Long, value: UnsafeRow): Unit =
      rows((StateRowKind.of(series), first)) = value.copy()
    override def remove(group: InternalRow, series: Int, first: Long): Unit =
      assert(rows.remove((StateRowKind.of(series), first)).isDefined,
        s"a ${StateRowKind.of(series)} chunk at $first to remove")
  }

  private def value(n: Long): UnsafeRow = codec.partialValue(InternalRow(n)).copy()

  /** A group's visits: each opens the record written by the one before, and closes it. */
  private final class Visits(chunkRows: Int, hotRows: Int) {
    val store = new MemoryChunks
    val counters = new StateCounters
    private val chunks = new RecordChunks(store, codec, counters, RecordLimits(512, 0, chunkRows, hotRows,
      chunked = true), layout.numBufferFields)
    private var written: UnsafeRow = _
    val record = new GroupRecord(layout.valueSchema.length)

    def open(): RecordChunks = {
      if (written == null) record.clear() else record.load(written, codec)
      chunks.open(group, record)
      chunks
    }

    /** As a group's close: the ends kept, the rest moved out, the chunks loaded deleted. */
    def close(): Unit = {
      chunks.spill(StateRowKind.Partial, hotRows, hotRows)
      chunks.spill(StateRowKind.Suffix, hotRows, 0)
      chunks.removeLoaded()
      written = codec.recordValue(null, record.contents()).copy()
    }

    def put(kind: StateRowKind, time: Long, n: Long): Unit = {
      chunks.load(kind, time, time)
      record.entries(kind).put(time, value(n))
    }

    def remove(kind: StateRowKind, time: Long): Unit = {
      chunks.load(kind, time, time)
      record.entries(kind).remove(time)
    }

    def read(kind: StateRowKind, from: Long, to: Long): Seq[(Long, Long)] = {
      val cursor = chunks.cursor(kind, from, to)
      val out = mutable.ArrayBuffer.empty[(Long, Long)]
      while (cursor.next()) out += ((cursor.time, codec.buffer(cursor.value).getLong(0)))
      cursor.close()
      out.toSeq
    }
  }

  test("rows moved out come back through the cursor") {
    val visits = new Visits(chunkRows = 4, hotRows = 2)
    visits.open()
    (0L until 30L).foreach(t => visits.put(StateRowKind.Partial, t * 10, t))
    visits.close()
    // 2 at each end kept, the 26 between in chunks of 4, but the tail's last run, which waits to
    // make a whole chunk.
    assertResult(6)(visits.record.chunks(StateRowKind.Partial).size)
    assertResult(6)(visits.store.rows.size)
    assertResult(6L)(visits.counters.created)
    assertResult(30)(visits.record.count(StateRowKind.Partial))

    visits.open()
    assertResult((0L until 30L).map(t => (t * 10, t)))(visits.read(StateRowKind.Partial, Long.MinValue, Long.MaxValue))
    visits.close()
    // Every chunk was loaded and moved out again under the same first time: nothing deleted.
    assertResult(0L)(visits.counters.removed)
    assertResult(6)(visits.store.rows.size)
  }

  test("a range loads only the chunks it reaches") {
    val visits = new Visits(chunkRows = 4, hotRows = 2)
    visits.open()
    (0L until 30L).foreach(t => visits.put(StateRowKind.Partial, t * 10, t))
    visits.close()
    val before = visits.counters.read
    visits.open()
    assertResult(Seq((0L, 0L), (10L, 1L)))(visits.read(StateRowKind.Partial, Long.MinValue, 15L))
    assertResult(before, "the head is in the record")(visits.counters.read)
    assertResult(Seq((60L, 6L)))(visits.read(StateRowKind.Partial, 55L, 65L))
    assertResult(before + 1, "one chunk read")(visits.counters.read)
    visits.close()
  }

  test("random visits keep every row") {
    val rnd = new Random(11)
    for (seq <- 0 until 200) {
      val visits = new Visits(chunkRows = 1 + rnd.nextInt(6), hotRows = rnd.nextInt(4))
      val expected = kinds.map(_ -> mutable.TreeMap.empty[Long, Long]).toMap
      var next = 0L
      for (visit <- 0 until 1 + rnd.nextInt(12)) {
        visits.open()
        for (_ <- 0 until rnd.nextInt(25)) {
          val kind = kinds(rnd.nextInt(2))
          val rows = expected(kind)
          rnd.nextInt(4) match {
            case 0 | 1 => // newest rows added, as a visit does
              next += 1 + rnd.nextInt(3)
              rows(next) = rnd.nextLong(); visits.put(kind, next, rows(next))
            case 2 if rows.nonEmpty => // a row replaced anywhere
              val t = rows.keys.toSeq(rnd.nextInt(rows.size))
              rows(t) = rnd.nextLong(); visits.put(kind, t, rows(t))
            case 3 if rows.nonEmpty => // the oldest rows expire
              val t = rows.firstKey
              rows.remove(t); visits.remove(kind, t)
            case _ =>
          }
          if (rnd.nextInt(5) == 0 && rows.nonEmpty) { // a range read in between
            val (a, b) = (rnd.nextLong() % (next + 2), rnd.nextLong() % (next + 2))
            val (from, to) = (math.min(a, b), math.max(a, b))
            assertResult(rows.range(from, to + 1).toSeq,
              s"sequence $seq visit $visit: $kind in [$from, $to]")(visits.read(kind, from, to))
          }
        }
        visits.close()
        // The record lists exactly the chunks the store holds, and counts every row.
        val listed = kinds.flatMap(k => visits.record.chunks(k).keySet.toArray.map(t => (k, t.asInstanceOf[java.lang.Long].longValue)))
        assertResult(listed.toSet, s"sequence $seq visit $visit: chunks")(visits.store.rows.keySet.toSet)
        assertResult(visits.store.rows.size.toLong,
          s"sequence $seq visit $visit: store rows counted")(visits.counters.created - visits.counters.removed)
        for (kind <- kinds) assertResult(expected(kind).size,
          s"sequence $seq visit $visit: $kind count")(visits.record.count(kind))
      }
      visits.open()
      for (kind <- kinds) assertResult(expected(kind).toSeq,
        s"sequence $seq: $kind rows")(visits.read(kind, Long.MinValue, Long.MaxValue))
      visits.close()
    }
  }
}
