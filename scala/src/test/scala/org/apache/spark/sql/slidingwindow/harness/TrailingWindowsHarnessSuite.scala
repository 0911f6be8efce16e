package org.apache.spark.sql.slidingwindow.harness

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/**
 * Streaming trailing windows (`RANGE BETWEEN size PRECEDING AND CURRENT ROW`, several sizes, and a
 * frame that ends a lag before the row) driven micro-batch by micro-batch over real HDFS and
 * RocksDB state stores ([[OperatorHarness]]), against [[TrailingWindowsReference]] (Append mode,
 * the only one the operator has): random streams with late rows, idle groups, watermark jumps,
 * equal times and rows at each size and lag ±1 µs, a watermark delay of about one micro-batch's
 * advance or of several (so that parts are due bit by bit), restarted with other part and step
 * sizes and crashed mid-batch.
 */
class TrailingWindowsHarnessSuite extends AnyFunSuite {
  import TrailingWindowsHarnessSuite._

  test("append mode on HDFS") { HarnessProperty.check(ProviderKind.Hdfs, 9000L, Streams)(cases(ProviderKind.Hdfs)) }
  test("append mode on RocksDB") {
    HarnessProperty.check(ProviderKind.RocksDb, 10000L, Streams)(cases(ProviderKind.RocksDb))
  }
}

object TrailingWindowsHarnessSuite {
  val Streams = 24

  private def pick[T](rng: Random, xs: Seq[T]): T = xs(rng.nextInt(xs.size))

  /** Two frames up to the row and one that ends a lag before it, of sizes drawn from the seed. */
  private def cases(provider: ProviderKind)(rng: Random): StreamCase[TrailingRow] = {
    val lagged = pick(rng, Seq(8000000L, 3000001L))
    val frames = Seq((pick(rng, Seq(0L, 1000000L, 3000000L)), 0L), (pick(rng, Seq(4000001L, 10000000L)), 0L),
      (lagged, pick(rng, Seq(1L, 2000000L, lagged))))
    val arrangements = provider.arrangements.filterNot(_.orderedRows)
    val reference = new TrailingWindowsReference(frames)
    StreamCase(new TrailingOperator(frames, pick(rng, arrangements)),
      StreamShape(frames.flatMap { case (size, lag) => Seq(size, lag) }.filter(_ > 0),
        delayMicros = pick(rng, Seq(3000000L, 12000000L)),
        settings = SettingChoices.trailingParts, fixed = SettingChoices.trailingChunks),
      reference.append)
  }
}
