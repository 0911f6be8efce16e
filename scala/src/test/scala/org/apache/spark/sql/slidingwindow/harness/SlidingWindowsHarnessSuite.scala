package org.apache.spark.sql.slidingwindow.harness

import org.apache.spark.sql.slidingwindow.expressions.WindowKind

/**
 * Streaming sliding windows (KIP-450) driven micro-batch by micro-batch over real HDFS and RocksDB
 * state stores ([[OperatorHarness]]), against [[SlidingWindowsReference]], in both output modes:
 * random streams with late rows, idle groups, watermark jumps, equal times and rows at the window
 * size ±1 µs, restarted with other record settings and crashed mid-batch.
 */
class SlidingWindowsHarnessSuite extends WindowedAggregateProperties(
  new WindowedAggregateCases(WindowKind.Sliding, Seq(1000000L, 2500000L, 5000001L, 10000000L),
    new SlidingWindowsReference(_)),
  firstSeed = 1000L)
