package org.apache.spark.sql.slidingwindow.harness

/**
 * What a stream of trailing windows emits, written from the definition (docs/contract.md,
 * "Trailing windows": Spark's `RANGE BETWEEN size PRECEDING AND CURRENT ROW`, or `AND lag
 * PRECEDING`), independent of the operator. The stream keeps the rows with a time after the
 * late-rows watermark of their micro-batch; each is emitted once, in the first micro-batch (its
 * own or later) whose eviction watermark is at or past its time, with, for each frame, the
 * aggregates over the rows kept of its group with a time in `[t - size, t - lag]`. Append mode only.
 */
final class TrailingWindowsReference(frames: Seq[(Long, Long)]) extends StreamReference[TrailingRow] {
  override def append(stream: HarnessStream): IndexedSeq[Seq[TrailingRow]] = {
    val arrivals = stream.batches.zipWithIndex.flatMap { case (b, i) => b.kept.map(_ -> i) }
    val byGroup = arrivals.map(_._1).groupBy(_.k)
    val emitted = arrivals.flatMap { case (r, arrival) =>
      val t = r.t.get
      val at = stream.batches.indices.indexWhere(i => i >= arrival && stream.batches(i).evictionMicros >= t)
      if (at < 0) None
      else Some(at -> TrailingRow(r, frames.map { case (size, lag) =>
        Aggregated.of(byGroup(r.k).filter(o => o.t.exists(u => t - size <= u && u <= t - lag)), withMax = false)
      }))
    }.groupBy(_._1)
    stream.batches.indices.map(i => emitted.getOrElse(i, Nil).map(_._2))
  }

  override def update(stream: HarnessStream): IndexedSeq[Seq[TrailingRow]] =
    throw new UnsupportedOperationException("streaming trailing windows run in the Append output mode only")
}
