package org.apache.spark.sql.slidingwindow.harness

import org.scalatest.funsuite.AnyFunSuite

/**
 * The four properties of a windowed aggregation's streaming operator (sliding and batch windows):
 * random streams of `cases` in each output mode on each store, against its reference, from seeds
 * `firstSeed`, `firstSeed + 1000`, ... (one block of seeds per test). A suite extends it with its
 * window kind's cases.
 */
abstract class WindowedAggregateProperties(cases: WindowedAggregateCases, firstSeed: Long) extends AnyFunSuite {
  test("append mode on HDFS") { check(ProviderKind.Hdfs, 0, append = true) }
  test("append mode on RocksDB") { check(ProviderKind.RocksDb, 1, append = true) }
  test("update mode on HDFS") { check(ProviderKind.Hdfs, 2, append = false) }
  test("update mode on RocksDB") { check(ProviderKind.RocksDb, 3, append = false) }

  private def check(provider: ProviderKind, block: Int, append: Boolean): Unit =
    HarnessProperty.check(provider, firstSeed + 1000L * block, WindowedAggregateProperties.Streams)(
      cases(provider, append))
}

object WindowedAggregateProperties {
  /** Streams per test (`-Dswa.harness.streams=N` runs N instead, HarnessProperty). */
  val Streams = 16
}
