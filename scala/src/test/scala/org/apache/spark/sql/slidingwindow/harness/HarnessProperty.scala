package org.apache.spark.sql.slidingwindow.harness

import scala.util.Random

import org.scalatest.Assertions._

/**
 * The property every harness suite checks, over random streams of fixed seeds: run on a real state
 * store, with restarts and crashes, an operator emits, micro-batch by micro-batch, the rows (as a
 * multiset) its reference says, and once the last watermark passes every row its state is empty
 * (but for its bookkeeping rows). A failure names the seed, the case and the stream.
 *
 * `-Dswa.harness.streams=N` runs N streams per test instead of the default; `-Dswa.harness.seed=S`
 * runs the one stream of seed S (a failure's).
 */
object HarnessProperty {
  /** The seeds of a test: `count` of them (or the property's), from `first`, or the one asked for. */
  def seeds(first: Long, count: Int): Seq[Long] =
    sys.props.get("swa.harness.seed").map(s => Seq(s.toLong)).getOrElse {
      val n = sys.props.get("swa.harness.streams").map(_.toInt).getOrElse(count)
      (0 until n).map(first + _)
    }

  /** Runs the case of each seed on `kind`'s stores; fails at the first stream that breaks the property. */
  def check[O](kind: ProviderKind, first: Long, count: Int)(caseOf: Random => StreamCase[O]): Unit =
    seeds(first, count).foreach { seed =>
      val c = caseOf(new Random(seed ^ 0x5DEECE66DL))
      val stream = new StreamGenerator(c.shape).generate(seed)
      val context = s"seed $seed (-Dswa.harness.seed=$seed), $kind, ${c.operator}"
      val run = try new OperatorHarness(c.operator, kind).run(stream) catch {
        case e: Throwable => throw new AssertionError(s"$context: ${e.getMessage}\n${stream.describe}", e)
      }
      assertSameRows(context, stream, c.expected(stream), run.output)
      assertResult(c.operator.bookkeepingRows,
        s"$context: the state rows left once the watermark passed every row\n${stream.describe}")(run.stateRows)
    }

  private def assertSameRows[O](context: String, stream: HarnessStream, expected: IndexedSeq[Seq[O]],
      actual: IndexedSeq[Seq[O]]): Unit =
    expected.indices.foreach { i =>
      val (want, got) = (counts(expected(i)), counts(actual(i)))
      if (want != got) {
        val missing = want.toSeq.flatMap { case (r, n) => Seq.fill(n - got.getOrElse(r, 0))(r) }
        val unexpected = got.toSeq.flatMap { case (r, n) => Seq.fill(n - want.getOrElse(r, 0))(r) }
        fail(s"$context: micro-batch $i emitted ${actual(i).size} rows, ${expected(i).size} expected; " +
          s"missing ${missing.take(5).mkString("[", ", ", "]")}${if (missing.size > 5) s" (${missing.size})" else ""}, " +
          s"unexpected ${unexpected.take(5).mkString("[", ", ", "]")}${if (unexpected.size > 5) s" (${unexpected.size})" else ""}" +
          s"\n${stream.describe}")
      }
    }

  private def counts[O](rows: Seq[O]): Map[O, Int] = rows.groupBy(identity).map { case (r, rs) => r -> rs.size }
}
