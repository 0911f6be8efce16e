package org.apache.spark.sql.slidingwindow.aggregation

import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, GenericInternalRow, GreaterThan, Literal, UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.aggregate.{CollectList, Count, First, HyperLogLogPlusPlus, Last, Max, Min, Sum}
import org.apache.spark.sql.slidingwindow.AggregateFixtures._
import org.apache.spark.sql.types.StringType
import org.apache.spark.unsafe.types.UTF8String

/** The four buffer primitives (update, merge, freeze/materialize, evaluate) one property at a time. */
class AggregateBuffersSuite extends AnyFunSuite {

  private def rows(ids: Int*): Seq[Row] = ids.map(i => Row(0, Some(i * 10L), i))

  private def working(buffers: AggregateBuffers, rs: Seq[Row]): InternalRow = {
    val b = buffers.newBuffer()
    rs.foreach(r => buffers.update(b, r.internal))
    b
  }

  private def evaluate(buffers: AggregateBuffers, buffer: InternalRow): Result =
    result(buffers.evaluate(buffer))

  test("filter is applied on update") {
    val big = Some(GreaterThan(value, Literal(10L)))
    // count(1), sum(v), max(v), collect_list(id), first(id), last(id), all FILTER (WHERE v > 10);
    // then an unfiltered sum(v) and count(1), so filtered and unfiltered slots sit side by side.
    val aggregates = standard.map(_.aggregateFunction).map(agg(_, big)) ++
      Seq(agg(Sum(value)), agg(Count(Seq(Literal(1)))))
    val buffers = new AggregateBuffers(aggregates, input)
    val in = Seq(Row(0, Some(5), 1), Row(0, Some(20), 2), Row(0, None, 3), Row(0, Some(11), 4),
      Row(0, Some(10), 5), Row(0, Some(30), 6))
    val b = working(buffers, in)
    assertResult(Result(3, Some(61), Some(30), Seq(2, 4, 6), Some(2), Some(6)))(evaluate(buffers, b))
    val out = buffers.evaluate(b)
    assertResult(76L, "unfiltered sum")(out.getLong(6))
    assertResult(6L, "unfiltered count")(out.getLong(7))

    // The filter is not applied again when partials are merged.
    val merged = buffers.materialize(buffers.freeze(b).copy())
    buffers.merge(merged, buffers.freeze(working(buffers, Seq(Row(0, Some(50), 7), Row(0, Some(1), 8)))))
    assertResult(Result(4, Some(111), Some(50), Seq(2, 4, 6, 7), Some(2), Some(7)))(evaluate(buffers, merged))
  }

  test("filtered aggregate of no rows is empty") {
    val never = Some(GreaterThan(value, Literal(1000L)))
    val buffers = new AggregateBuffers(standard.map(_.aggregateFunction).map(agg(_, never)), input)
    assertResult(Result(0, None, None, Nil, None, None))(evaluate(buffers, working(buffers, rows(1, 2))))
  }

  test("merge keeps order for first, last and collect_list") {
    val buffers = standardBuffers()
    val a = partialOf(buffers, rows(1, 2))
    val b = partialOf(buffers, rows(3, 4))

    val ab = buffers.newBuffer()
    buffers.merge(ab, a)
    buffers.merge(ab, b)
    assertResult(expected(rows(1, 2, 3, 4)))(evaluate(buffers, ab))

    val ba = buffers.newBuffer()
    buffers.merge(ba, b)
    buffers.merge(ba, a)
    assertResult(expected(rows(3, 4, 1, 2)))(evaluate(buffers, ba))

    // Rows already updated into the buffer come before a merged partial.
    val updatedThenMerged = working(buffers, rows(9))
    buffers.merge(updatedThenMerged, a)
    assertResult(Result(3, Some(120), Some(90), Seq(9, 1, 2), Some(9), Some(2)))(
      evaluate(buffers, updatedThenMerged))
  }

  test("freeze and materialize round trip typed") {
    roundTrip(new AggregateBuffers(Seq(agg(CollectList(id))), input),
      r => r.getArray(0).toIntArray().toSeq)
  }

  test("freeze and materialize round trip declarative") {
    roundTrip(new AggregateBuffers(Seq(agg(Sum(value)), agg(Max(value)), agg(new First(id))), input),
      r => Seq(r.getLong(0), r.getLong(1), r.getInt(2)))
  }

  private def roundTrip(buffers: AggregateBuffers, read: InternalRow => Seq[Any]): Unit = {
    val before = read(buffers.evaluate(working(buffers, rows(3, 1, 2))))
    val partial = buffers.freeze(working(buffers, rows(3, 1, 2))).copy()
    val restored = buffers.materialize(partial)
    assertResult(before)(read(buffers.evaluate(restored)))
    // The materialized buffer keeps working, and the partial is not changed by it.
    buffers.update(restored, Row(0, Some(70), 7).internal)
    assertResult(read(buffers.evaluate(working(buffers, rows(3, 1, 2, 7)))))(read(buffers.evaluate(restored)))
    assertResult(before)(read(buffers.evaluate(buffers.materialize(partial))))
    // A copied frozen partial does not change when another buffer is frozen.
    val other = buffers.freeze(working(buffers, rows(5)))
    assertResult(before)(read(buffers.evaluate(buffers.materialize(partial))))
    assert(before != read(buffers.evaluate(buffers.materialize(other))))
  }

  test("as partial leaves the working buffer usable") {
    val typed = standardBuffers()
    val declarative = new AggregateBuffers(Seq(agg(Sum(value)), agg(new Last(id))), input)
    val readDeclarative = (r: InternalRow) => Seq(r.getLong(0), r.getInt(1))
    for ((buffers, read) <- Seq[(AggregateBuffers, InternalRow => Any)](
        (typed, result _), (declarative, readDeclarative))) {
      val b = working(buffers, rows(1, 2, 3))
      val snapshot = buffers.newBuffer()
      buffers.merge(snapshot, buffers.asPartial(b))
      // The snapshot holds exactly what the buffer held when asPartial was taken...
      assertResult(read(buffers.evaluate(working(buffers, rows(1, 2, 3)))))(read(buffers.evaluate(snapshot)))
      // ...and the working buffer keeps aggregating.
      buffers.update(b, rows(4).head.internal)
      buffers.update(b, rows(5).head.internal)
      assertResult(read(buffers.evaluate(working(buffers, rows(1, 2, 3, 4, 5)))))(read(buffers.evaluate(b)))
      assertResult(read(buffers.evaluate(working(buffers, rows(1, 2, 3)))))(read(buffers.evaluate(snapshot)))
    }
  }

  test("mixed kinds keep their own slots") {
    // Declarative, imperative (HLL++) and typed (collect_list) functions interleaved: each must use
    // its own buffer offsets, for update and for merge.
    val buffers = new AggregateBuffers(Seq(agg(Sum(value)), agg(HyperLogLogPlusPlus(id)),
      agg(CollectList(id)), agg(Count(Seq(Literal(1)))), agg(HyperLogLogPlusPlus(value))), input)
    val b = buffers.newBuffer()
    buffers.merge(b, partialOf(buffers, Seq(Row(0, Some(1), 1), Row(0, Some(1), 2))))
    buffers.merge(b, partialOf(buffers, Seq(Row(0, Some(2), 2), Row(0, Some(3), 3))))
    val r = buffers.evaluate(b)
    assertResult(7L)(r.getLong(0))
    assertResult(3L)(r.getLong(1))
    assertResult(Seq(1, 2, 2, 3))(r.getArray(2).toIntArray().toSeq)
    assertResult(4L)(r.getLong(3))
    assertResult(3L)(r.getLong(4))
  }

  test("string buffers survive reuse of the input row") {
    val s = AttributeReference("s", StringType)()
    val buffers = new AggregateBuffers(Seq(agg(Max(s)), agg(Min(s)), agg(new First(s)), agg(new Last(s))), Seq(s))
    val words = Seq("mango", "apple", "zebra", "kiwi")
    def check(b: InternalRow, how: String): Unit = {
      val r = buffers.evaluate(b)
      assertResult(Seq("zebra", "apple", "mango", "kiwi"), how)((0 until 4).map(r.getUTF8String(_).toString))
    }

    // One GenericInternalRow whose string field is overwritten, the string bytes themselves living in
    // one reused array (as they do in an iterator's reused UnsafeRow).
    val bytes = new Array[Byte](16)
    val row = new GenericInternalRow(1)
    val b1 = buffers.newBuffer()
    for (w <- words) {
      java.util.Arrays.fill(bytes, 'X'.toByte)
      val encoded = w.getBytes(UTF_8)
      System.arraycopy(encoded, 0, bytes, 0, encoded.length)
      row.update(0, UTF8String.fromBytes(bytes, 0, encoded.length))
      buffers.update(b1, row)
    }
    java.util.Arrays.fill(bytes, 'X'.toByte)
    row.update(0, UTF8String.fromString("XXXX"))
    check(b1, "after reusing a GenericInternalRow")
    check(buffers.materialize(buffers.freeze(b1)), "after freeze and materialize")

    // The same through an UnsafeProjection, which reuses its output row.
    val project = UnsafeProjection.create(Array[org.apache.spark.sql.types.DataType](StringType))
    val b2 = buffers.newBuffer()
    words.foreach(w => buffers.update(b2, project(InternalRow(UTF8String.fromString(w)))))
    project(InternalRow(UTF8String.fromString("XXXXXXXXXX")))
    check(b2, "after reusing an UnsafeRow")
  }

  test("partial builder and merge partials equal update and merge") {
    // The generated paths (declarative only, FILTER included) and the general ones (typed
    // aggregates) must give what plain update and merge give, rows kept in order.
    val rnd = new scala.util.Random(23)
    val filtered = declarative.map(_.aggregateFunction).map(agg(_, Some(GreaterThan(value, Literal(0L)))))
    for (set <- aggregateSets :+ AggregateSet("declarative, filtered", filtered)) {
      val buffers = set.buffers()
      val builder = new PartialBuilder(buffers)
      for (i <- 0 until 200) {
        val n = 1 + rnd.nextInt(if (rnd.nextBoolean()) 1 else 4)
        val rs = (0 until n).map(j => Row(0, if (rnd.nextInt(6) == 0) None else Some(rnd.nextInt(21) - 10L), i * 10 + j))
        builder.begin(rs.head.internal)
        rs.tail.foreach(r => builder.add(r.internal))
        val built = builder.result.copy()
        val reference = partialOf(buffers, rs)
        assertResult(set.read(buffers.evaluate(buffers.materialize(reference))),
          s"${set.name}: partial of $rs")(set.read(buffers.evaluate(buffers.materialize(built))))

        val older = partialOf(buffers, Seq(Row(0, Some(rnd.nextInt(9).toLong), -1)))
        val merged = buffers.mergePartials(older, built).copy()
        val expectedMerge = buffers.materialize(older)
        buffers.merge(expectedMerge, reference)
        assertResult(set.read(buffers.evaluate(expectedMerge)),
          s"${set.name}: merge with $rs")(set.read(buffers.evaluate(buffers.materialize(merged))))
      }
    }
  }
}
