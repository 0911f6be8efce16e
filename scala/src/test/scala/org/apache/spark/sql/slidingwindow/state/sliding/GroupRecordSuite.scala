package org.apache.spark.sql.slidingwindow.state
package sliding

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, UnsafeRow}
import org.apache.spark.sql.types.{DataType, DoubleType, LongType, StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.sql.slidingwindow.PropertyCases

/**
 * A group's record written and read back: every entry, kept whole or as its buffer alone, raw or
 * packed, comes back byte for byte as the value it was, whatever the buffer's fields (fixed or variable width,
 * null or not), with the record's own fields and the list of its chunks; and a chunk's value
 * brings its rows back into the record.
 */
class GroupRecordSuite extends AnyFunSuite {
  private val kinds: Seq[StateRowKind] = Seq(StateRowKind.Partial, StateRowKind.Suffix)

  private def randomBufferSchema(rnd: Random): StructType = StructType(
    (0 until 1 + rnd.nextInt(5)).map { i =>
      val t: DataType = Seq(LongType, DoubleType, StringType)(rnd.nextInt(3))
      StructField(s"b$i", t, nullable = true)
    })

  private def randomBuffer(rnd: Random, schema: StructType): InternalRow = InternalRow.fromSeq(schema.fields.toSeq.map { f =>
    if (rnd.nextInt(4) == 0) null
    else f.dataType match {
      // Small integers, as counts and sums are, make sections of buffers alone written packed.
      case LongType => if (rnd.nextBoolean()) rnd.nextInt(1000).toLong - 500 else rnd.nextLong()
      case DoubleType => rnd.nextDouble()
      case StringType => UTF8String.fromString("s" * rnd.nextInt(20))
    }
  })

  test("records round trip") {
    val rnd = new Random(7)
    var copied = 0L
    for (seq <- 0 until PropertyCases(300)) {
      val bufferSchema = randomBufferSchema(rnd)
      val layout = WindowStateLayout(2, Seq(AttributeReference("k", LongType)()), bufferSchema)
      val codec = layout.codec()
      val written = new GroupRecord(layout.valueSchema.length)
      val expected = kinds.map(_ -> scala.collection.mutable.TreeMap.empty[Long, UnsafeRow]).toMap
      val chunkValues = scala.collection.mutable.ArrayBuffer.empty[(StateRowKind, Long, UnsafeRow)]
      for (_ <- 0 until rnd.nextInt(12)) {
        val kind = kinds(rnd.nextInt(2))
        val time = rnd.nextInt(1000).toLong - 500
        // Sliding windows' values hold a buffer alone; batch windows' a buffer and a time.
        val value = (if (rnd.nextBoolean()) codec.partialValue(randomBuffer(rnd, bufferSchema))
          else codec.windowValue(randomBuffer(rnd, bufferSchema), rnd.nextLong())).copy()
        written.entries(kind).put(time, value)
        expected(kind)(time) = value
      }
      // Chunks out of the record: listed in it, their rows in values of their own.
      val chunked = kinds.map(_ -> new java.util.TreeMap[java.lang.Long, UnsafeRow]).toMap
      // Chunks after the record's rows or before them (a visit loads the older ones in front).
      for (kind <- kinds; first <- Seq.fill(rnd.nextInt(3))((if (rnd.nextBoolean()) 1000L else -12000L) + rnd.nextInt(1000) * 10L).distinct) {
        val chunk = chunked(kind)
        val rows = new TimeRows(layout.valueSchema.length)
        for (i <- 0 until 1 + rnd.nextInt(3)) {
          rows.put(first + i, codec.partialValue(randomBuffer(rnd, bufferSchema)).copy())
        }
        if (chunk.isEmpty || !chunk.keySet.toArray.exists(t => math.abs(t.asInstanceOf[java.lang.Long] - first) < 10)) {
          written.chunks(kind).put(first, Chunk(first, rows.timeAt(rows.size - 1), rows.size))
          for (i <- 0 until rows.size) chunk.put(rows.timeAt(i), rows.valueAt(i))
          chunkValues += ((kind, first, codec.recordValue(null, written.chunkContents(rows, 0, rows.size)).copy()))
        }
      }
      written.nextVisit = if (rnd.nextBoolean()) GroupRecord.NoVisit else rnd.nextLong()
      written.indexed = if (rnd.nextBoolean()) GroupRecord.NoVisit else rnd.nextLong()
      val meta =
        if (rnd.nextBoolean()) null
        else codec.queueBackValue(randomBuffer(rnd, bufferSchema), rnd.nextLong(), Some(rnd.nextLong())).copy()

      val value = codec.recordValue(meta, written.contents()).copy()
      val read = new GroupRecord(layout.valueSchema.length)
      read.load(value, codec)

      assertResult(written.nextVisit, s"sequence $seq")(read.nextVisit)
      assertResult(written.indexed, s"sequence $seq")(read.indexed)
      assert(read.rowsInRecord, s"sequence $seq")
      assertResult(0, s"sequence $seq")(read.ownRows)
      assertResult(meta == null, s"sequence $seq: meta")(read.queueBack == null)
      if (meta != null) assertResult(meta, s"sequence $seq: meta")(codec.queueBackValue(codec.buffer(read.queueBack),
        codec.lastPushed(read.queueBack).get, codec.backOldest(read.queueBack)))
      for (kind <- kinds) {
        assertResult(written.chunks(kind), s"sequence $seq: $kind chunks")(read.chunks(kind))
        assertResult(written.count(kind), s"sequence $seq: $kind rows")(read.count(kind))
      }
      // A chunk's value read back brings its rows into the record, byte for byte.
      for ((kind, _, chunkValue) <- chunkValues) read.loadChunk(kind, chunkValue, codec)
      for (kind <- kinds; time <- chunked(kind).keySet.toArray) {
        assertResult(chunked(kind).get(time), s"sequence $seq: $kind chunk row at $time")(
          read.entries(kind).get(time.asInstanceOf[java.lang.Long].longValue))
      }
      for (kind <- kinds) {
        val entries = read.entries(kind)
        val inRecord = entries.timesArray.toSeq.filterNot(t => chunked(kind).containsKey(t))
        assertResult(expected(kind).keys.toSeq, s"sequence $seq: $kind times")(inRecord)
        for ((time, row) <- expected(kind)) {
          assertResult(row, s"sequence $seq: $kind at $time")(entries.get(time))
        }
      }

      // Written again as read (rows of packed sections kept as words, some of them read), with
      // rows added and removed, and read back: every row, byte for byte.
      val again = kinds.map(kind => kind -> (expected(kind) ++ chunked(kind).asScala.map {
        case (t, v) => t.longValue -> v
      })).toMap
      val fresh = new GroupRecord(layout.valueSchema.length)
      fresh.load(value, codec)
      for ((kind, _, chunkValue) <- chunkValues) fresh.loadChunk(kind, chunkValue, codec)
      for (kind <- kinds) {
        val entries = fresh.entries(kind)
        for (i <- 0 until entries.size if rnd.nextInt(3) == 0) entries.valueAt(i)
        for (_ <- 0 until rnd.nextInt(3) if entries.size > 0) {
          val t = entries.timeAt(rnd.nextInt(entries.size))
          entries.remove(t)
          again(kind) -= t
        }
        for (_ <- 0 until rnd.nextInt(3)) {
          // Added at the end, or in place of a row (which is then no longer as it was read).
          val t = if (entries.size > 0 && rnd.nextBoolean()) entries.timeAt(rnd.nextInt(entries.size))
            else 5000L + rnd.nextInt(1000)
          val v = codec.partialValue(randomBuffer(rnd, bufferSchema)).copy()
          entries.put(t, v)
          again(kind)(t) = v
        }
        fresh.chunks(kind).clear()
      }
      val reread = new GroupRecord(layout.valueSchema.length)
      reread.load(codec.recordValue(null, fresh.contents()).copy(), codec)
      for (kind <- kinds) {
        assertResult(again(kind).keys.toSeq, s"sequence $seq: $kind times written again")(
          reread.entries(kind).timesArray.toSeq)
        for ((time, row) <- again(kind)) assertResult(row, s"sequence $seq: $kind at $time written again")(
          reread.entries(kind).get(time))
      }
      // The same bytes as the same rows put into a new record: copied where they are still as
      // read, encoded elsewhere.
      assertResult(writtenFresh(fresh, again, layout.valueSchema.length), s"sequence $seq: bytes written again")(
        fresh.contents())
      copied += fresh.rowsCopied
    }
    // 38 of the 300 cases: packed sections are a part of the random ones.
    assert(copied > PropertyCases(10), s"rows copied: $copied")
  }

  /** The contents of a new record with the fields of `record` and the rows `rows`, put one by one. */
  private def writtenFresh(record: GroupRecord, rows: Map[StateRowKind, scala.collection.Map[Long, UnsafeRow]],
      numValueFields: Int): Array[Byte] = {
    val rebuilt = new GroupRecord(numValueFields)
    rebuilt.nextVisit = record.nextVisit
    rebuilt.indexed = record.indexed
    rebuilt.rowsInRecord = record.rowsInRecord
    rebuilt.ownRows = record.ownRows
    for (kind <- kinds; (time, row) <- rows(kind)) rebuilt.entries(kind).put(time, row)
    val bytes = rebuilt.contents()
    assertResult(0L)(rebuilt.rowsCopied)
    bytes
  }

  /**
   * Update mode's visit of a sliding window group: its oldest row expires, a row is added after
   * the others, every row is read. The record is written back by copying the bytes of all the
   * rows kept but the first, and they are the bytes a new record with those rows writes.
   */
  /**
   * Where a group's rows live is part of the record: a group whose rows are rows of their own
   * keeps their count, and an empty one (0 rows of their own) says nothing.
   */
  test("rows of their own round trip") {
    val layout = WindowStateLayout(2, Seq(AttributeReference("k", LongType)()),
      StructType(Seq(StructField("n", LongType, nullable = true))))
    val codec = layout.codec()
    for (own <- Seq(0, 1, 513, Int.MaxValue)) {
      val written = new GroupRecord(layout.valueSchema.length)
      written.rowsInRecord = false
      written.ownRows = own
      written.nextVisit = 42L
      val read = new GroupRecord(layout.valueSchema.length)
      read.load(codec.recordValue(null, written.contents()).copy(), codec)
      assert(!read.rowsInRecord, s"$own rows of their own")
      assertResult(own)(read.ownRows)
      assertResult(42L)(read.nextVisit)
      read.nextVisit = GroupRecord.NoVisit
      assertResult(own == 0, s"$own rows of their own")(read.isEmpty)
    }
  }

  test("rows as read are copied") {
    val bufferSchema = StructType(Seq(StructField("count", LongType), StructField("sum", LongType), StructField("max", LongType)))
    val layout = WindowStateLayout(2, Seq(AttributeReference("k", LongType)()), bufferSchema)
    val codec = layout.codec()
    val rows = scala.collection.mutable.TreeMap.empty[Long, UnsafeRow]
    for (i <- 0 until 40) rows(1700000000000000L + i * 30000000L) = codec.partialValue(InternalRow(1L, 100000L * i, 100000L * i)).copy()
    val first = new GroupRecord(layout.valueSchema.length)
    for ((t, v) <- rows) first.entries(StateRowKind.Partial).put(t, v)
    var value = codec.recordValue(null, first.contents()).copy()
    for (visit <- 1 to 3) {
      val record = new GroupRecord(layout.valueSchema.length)
      record.load(value, codec)
      val partials = record.entries(StateRowKind.Partial)
      (0 until partials.size).foreach(partials.valueAt)
      partials.remove(rows.firstKey)
      rows -= rows.firstKey
      val t = rows.lastKey + 30000000L
      rows(t) = codec.partialValue(InternalRow(2L, 7L * visit, 99L)).copy()
      partials.put(t, rows(t))
      val contents = record.contents()
      assertResult(38L, s"visit $visit: rows copied")(record.rowsCopied)
      assertResult(writtenFresh(record, Map(StateRowKind.Partial -> rows,
        StateRowKind.Suffix -> scala.collection.mutable.TreeMap.empty[Long, UnsafeRow]), layout.valueSchema.length),
        s"visit $visit")(contents)
      value = codec.recordValue(null, contents).copy()
    }
  }

  /**
   * Buffers of small integers 30 seconds apart, as a sliding window's counts and sums: written
   * packed, each entry takes fewer bytes than its buffer alone, and reads back byte for byte.
   */
  test("small integers are packed") {
    val bufferSchema = StructType(Seq(StructField("count", LongType), StructField("sum", LongType), StructField("max", LongType)))
    val layout = WindowStateLayout(2, Seq(AttributeReference("k", LongType)()), bufferSchema)
    val codec = layout.codec()
    val written = new GroupRecord(layout.valueSchema.length)
    val times = (0 until 40).map(i => 1700000000000000L + i * 30000000L)
    for ((t, i) <- times.zipWithIndex) {
      written.entries(StateRowKind.Partial).put(t, codec.partialValue(InternalRow(1L, 100000L * i, 100000L * i)).copy())
      written.entries(StateRowKind.Suffix).put(t, codec.partialValue(InternalRow(40L - i, 7L * (40 - i), 99L)).copy())
    }
    val contents = written.contents()
    // 32 bytes a buffer alone (null bits and three longs), 4 for each time.
    assert(contents.length < 80 * 20, s"${contents.length} bytes")
    val read = new GroupRecord(layout.valueSchema.length)
    read.load(codec.recordValue(null, contents).copy(), codec)
    for (kind <- kinds; t <- times) assertResult(written.entries(kind).get(t), s"$kind at $t")(read.entries(kind).get(t))
  }
}
