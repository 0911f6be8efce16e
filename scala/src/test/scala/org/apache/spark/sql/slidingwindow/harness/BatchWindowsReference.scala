package org.apache.spark.sql.slidingwindow.harness

import scala.collection.mutable

/**
 * What a stream of batch windows of size `size` emits, written from the definition
 * (docs/contract.md, "Batch windows"), independent of the operator. Per group: stream time after
 * a row = max(stream time before, the row's time, the eviction watermark of its micro-batch); the
 * row goes to `[floor(st / S) * S, + S)`. Within a micro-batch a group's rows are applied in time
 * order; no row is dropped for being late. Each micro-batch first closes the windows whose end its
 * eviction watermark reached, then applies its rows; a window that stream time leaves closes.
 *  - Append mode: each window once, in the micro-batch that closed it.
 *  - Update mode: each micro-batch, every window that received rows in it, with its rows then.
 * The window row's bounds are (start, start + S).
 */
final class BatchWindowsReference(size: Long) extends StreamReference[WindowRow] {
  override def append(stream: HarnessStream): IndexedSeq[Seq[WindowRow]] = simulate(stream, append = true)
  override def update(stream: HarnessStream): IndexedSeq[Seq[WindowRow]] = simulate(stream, append = false)

  private def startOf(streamTime: Long): Long = Math.floorDiv(streamTime, size) * size

  private final class Group(var streamTime: Long, var start: Long, val rows: mutable.ArrayBuffer[InputRow])

  private def simulate(stream: HarnessStream, append: Boolean): IndexedSeq[Seq[WindowRow]] = {
    val groups = mutable.LinkedHashMap.empty[Option[Long], Group]
    def window(k: Option[Long], g: Group) = WindowRow(k, g.start, g.start + size, Aggregated.of(g.rows.toList, withMax = true))
    stream.batches.map { batch =>
      val out = mutable.ArrayBuffer.empty[WindowRow]
      val watermark = batch.evictionMicros
      groups.toList.foreach { case (k, g) =>
        if (g.start + size <= watermark) {
          if (append) out += window(k, g)
          groups.remove(k)
        }
      }
      val rows = batch.rows.filter(_.t.isDefined)
      rows.groupBy(_.k).toSeq.foreach { case (k, groupRows) =>
        var received = false // whether the group's open window received a row of this micro-batch
        groupRows.sortBy(_.t.get).foreach { r =>
          val t = r.t.get
          val g = groups.getOrElseUpdate(k, new Group(t max watermark, startOf(t max watermark), mutable.ArrayBuffer.empty))
          g.streamTime = Seq(g.streamTime, t, watermark).max
          val start = startOf(g.streamTime)
          if (start != g.start) {
            if (append || received) out += window(k, g)
            g.start = start
            g.rows.clear()
            received = false
          }
          g.rows += r
          received = true
        }
        if (!append) out += window(k, groups(k))
      }
      out.toList
    }
  }
}
