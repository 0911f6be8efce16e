package org.apache.spark.sql.slidingwindow.harness

import org.junit.Test

import org.apache.spark.sql.slidingwindow.expressions.WindowKind

/**
 * Streaming batch windows driven micro-batch by micro-batch over real HDFS and RocksDB state
 * stores ([[OperatorHarness]]), against [[BatchWindowsReference]], in both output modes: random
 * streams whose late rows go to the group's stream time, with idle groups, watermark jumps and
 * rows on the windows' alignment ±1 µs, restarted with other record settings and crashed mid-batch.
 */
class BatchWindowsHarnessSuite {
  import BatchWindowsHarnessSuite._

  @Test def appendModeOnHdfs(): Unit = HarnessProperty.check(ProviderKind.Hdfs, 5000L, Streams)(cases(ProviderKind.Hdfs, append = true))
  @Test def appendModeOnRocksDb(): Unit = HarnessProperty.check(ProviderKind.RocksDb, 6000L, Streams)(cases(ProviderKind.RocksDb, append = true))
  @Test def updateModeOnHdfs(): Unit = HarnessProperty.check(ProviderKind.Hdfs, 7000L, Streams)(cases(ProviderKind.Hdfs, append = false))
  @Test def updateModeOnRocksDb(): Unit = HarnessProperty.check(ProviderKind.RocksDb, 8000L, Streams)(cases(ProviderKind.RocksDb, append = false))
}

object BatchWindowsHarnessSuite {
  val Streams = 16
  private val cases = new WindowedAggregateCases(WindowKind.Batch,
    Seq(1000000L, 2000000L, 3000007L, 5000000L), new BatchWindowsReference(_))
}
