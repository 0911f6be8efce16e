package org.apache.spark.sql.slidingwindow.harness

import org.apache.spark.sql.slidingwindow.expressions.WindowKind

/**
 * Streaming batch windows driven micro-batch by micro-batch over real HDFS and RocksDB state
 * stores ([[OperatorHarness]]), against [[BatchWindowsReference]], in both output modes: random
 * streams whose late rows go to the group's stream time, with idle groups, watermark jumps and
 * rows on the windows' alignment ±1 µs, restarted with other record settings and crashed mid-batch.
 */
class BatchWindowsHarnessSuite extends WindowedAggregateProperties(
  new WindowedAggregateCases(WindowKind.Batch, Seq(1000000L, 2000000L, 3000007L, 5000000L),
    new BatchWindowsReference(_)),
  firstSeed = 5000L)
