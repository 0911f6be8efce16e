package org.apache.spark.sql.slidingwindow.idle

import org.apache.spark.util.AccumulatorV2

/**
 * The earliest visit a micro-batch's state has scheduled, over its partitions, in microseconds
 * (Long.MaxValue: none): no window closes (no trailing row is due) before the watermark reaches
 * it. The operator reads it on the driver to decide whether a micro-batch without new input would
 * close windows ([[QuietClose.runAnotherBatch]]).
 */
final class EarliestVisit extends AccumulatorV2[Long, Long] {
  private var earliest = Long.MaxValue

  override def isZero: Boolean = earliest == Long.MaxValue
  override def copy(): EarliestVisit = { val c = new EarliestVisit; c.earliest = earliest; c }
  override def reset(): Unit = earliest = Long.MaxValue
  override def add(v: Long): Unit = if (v < earliest) earliest = v
  override def merge(other: AccumulatorV2[Long, Long]): Unit = add(other.value)
  override def value: Long = earliest
}
