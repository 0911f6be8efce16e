package org.apache.spark.sql.slidingwindow.harness

import org.junit.Test

import org.apache.spark.sql.slidingwindow.expressions.WindowKind

/**
 * Streaming sliding windows (KIP-450) driven micro-batch by micro-batch over real HDFS and RocksDB
 * state stores ([[OperatorHarness]]), against [[SlidingWindowsReference]], in both output modes:
 * random streams with late rows, idle groups, watermark jumps, equal times and rows at the window
 * size ±1 µs, restarted with other record settings and crashed mid-batch.
 */
class SlidingWindowsHarnessSuite {
  import SlidingWindowsHarnessSuite._

  @Test def appendModeOnHdfs(): Unit = HarnessProperty.check(ProviderKind.Hdfs, 1000L, Streams)(cases(ProviderKind.Hdfs, append = true))
  @Test def appendModeOnRocksDb(): Unit = HarnessProperty.check(ProviderKind.RocksDb, 2000L, Streams)(cases(ProviderKind.RocksDb, append = true))
  @Test def updateModeOnHdfs(): Unit = HarnessProperty.check(ProviderKind.Hdfs, 3000L, Streams)(cases(ProviderKind.Hdfs, append = false))
  @Test def updateModeOnRocksDb(): Unit = HarnessProperty.check(ProviderKind.RocksDb, 4000L, Streams)(cases(ProviderKind.RocksDb, append = false))
}

object SlidingWindowsHarnessSuite {
  val Streams = 16
  private val cases = new WindowedAggregateCases(WindowKind.Sliding,
    Seq(1000000L, 2500000L, 5000001L, 10000000L), new SlidingWindowsReference(_))
}
