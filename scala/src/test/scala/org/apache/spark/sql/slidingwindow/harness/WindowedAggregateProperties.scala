package org.apache.spark.sql.slidingwindow.harness

import org.junit.Test

/**
 * The four properties of a windowed aggregation's streaming operator (sliding and batch windows):
 * random streams of `cases` in each output mode on each store, against its reference, from seeds
 * `firstSeed`, `firstSeed + 1000`, ... (one block of seeds per test). A suite extends it with its
 * window kind's cases.
 */
abstract class WindowedAggregateProperties(cases: WindowedAggregateCases, firstSeed: Long) {
  @Test def appendModeOnHdfs(): Unit = check(ProviderKind.Hdfs, 0, append = true)
  @Test def appendModeOnRocksDb(): Unit = check(ProviderKind.RocksDb, 1, append = true)
  @Test def updateModeOnHdfs(): Unit = check(ProviderKind.Hdfs, 2, append = false)
  @Test def updateModeOnRocksDb(): Unit = check(ProviderKind.RocksDb, 3, append = false)

  private def check(provider: ProviderKind, block: Int, append: Boolean): Unit =
    HarnessProperty.check(provider, firstSeed + 1000L * block, WindowedAggregateProperties.Streams)(
      cases(provider, append))
}

object WindowedAggregateProperties {
  /** Streams per test (`-Dswa.harness.streams=N` runs N instead, HarnessProperty). */
  val Streams = 16
}
