package org.apache.spark.sql.slidingwindow.harness

/**
 * What a stream of sliding windows of size `size` emits, written from the definition
 * (docs/contract.md, "Sliding windows", KIP-450), by brute force and independent of the operator:
 * a group's windows are the left window `[t - S, t]` of each of its times and the right window
 * `[t + 1, t + 1 + S]` of each that holds a row, both bounds inclusive, each window once. The
 * stream keeps the rows after the late-rows watermark of their micro-batch.
 *  - Append mode: each window of the rows kept, once, in the first micro-batch whose eviction
 *    watermark is at or past its end, with every row kept in it (a later row in it would be late).
 *  - Update mode: each micro-batch, every window of the rows kept so far that is new or holds a
 *    row of the micro-batch, with the rows kept so far in it.
 */
final class SlidingWindowsReference(size: Long) extends StreamReference[WindowRow] {
  /** A group's windows: (start, end) -> the rows in it. */
  def windows(rows: Seq[InputRow]): Map[(Long, Long), Seq[InputRow]] = {
    val times = rows.flatMap(_.t).distinct
    val lefts = times.map(t => (t - size, t))
    val rights = times.map(t => (t + 1, t + 1 + size)).filter { case (s, e) => times.exists(u => s <= u && u <= e) }
    (lefts ++ rights).distinct.map { case (s, e) => (s, e) -> rows.filter(r => r.t.exists(u => s <= u && u <= e)) }.toMap
  }

  private def row(k: Option[Long], bounds: (Long, Long), in: Seq[InputRow]) =
    WindowRow(k, bounds._1, bounds._2, Aggregated.of(in, withMax = true))

  override def append(stream: HarnessStream): IndexedSeq[Seq[WindowRow]] = {
    val kept = stream.batches.flatMap(_.kept)
    val closing = stream.batches.map(_.evictionMicros)
    val byBatch = kept.groupBy(_.k).toSeq.flatMap { case (k, rows) =>
      windows(rows).toSeq.flatMap { case (bounds, in) =>
        val at = closing.indexWhere(_ >= bounds._2)
        if (at < 0) None else Some(at -> row(k, bounds, in))
      }
    }.groupBy(_._1)
    stream.batches.indices.map(i => byBatch.getOrElse(i, Nil).map(_._2))
  }

  override def update(stream: HarnessStream): IndexedSeq[Seq[WindowRow]] = {
    var before = Map.empty[Option[Long], Seq[InputRow]]
    stream.batches.map { batch =>
      val after = batch.kept.foldLeft(before)((m, r) => m.updated(r.k, m.getOrElse(r.k, Nil) :+ r))
      val changed = batch.kept.map(_.k).distinct.flatMap { k =>
        val old = windows(before.getOrElse(k, Nil))
        windows(after(k)).toSeq.collect {
          case (bounds, in) if !old.get(bounds).exists(_.size == in.size) => row(k, bounds, in)
        }
      }
      before = after
      changed
    }
  }
}
