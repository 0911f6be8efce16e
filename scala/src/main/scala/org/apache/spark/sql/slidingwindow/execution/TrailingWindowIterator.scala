package org.apache.spark.sql.slidingwindow.execution

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, JoinedRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.slidingwindow.windows.TrailingWindows

/**
 * The rows of a partition clustered by the partition keys and sorted by time within each group,
 * each with its trailing windows' aggregates. The rows of one time (peers) are held until the
 * next time comes, as each one's windows hold the others, then written out together.
 *
 * @param partitionKeys the partition keys (rows are of one group while their keys are equal byte
 *                      for byte, as Spark's WindowExec compares them)
 * @param time          the time, bound to the input rows
 * @param output        the output row from an input row joined with every size's results
 */
final class TrailingWindowIterator(
    partitionKeys: UnsafeProjection,
    time: Expression,
    windows: TrailingWindows,
    output: UnsafeProjection,
    input: Iterator[InternalRow],
    numGroups: SQLMetric,
    numOutputRows: SQLMetric) extends Iterator[InternalRow] {

  private var groupKey: UnsafeRow = _
  private val peers = new ArrayBuffer[InternalRow]
  private var written = 0
  private var results: InternalRow = _
  private val withResults = new JoinedRow
  // The first row of the next time (or group), read while looking for the end of the peers.
  private var pending: InternalRow = _
  private var pendingKey: UnsafeRow = _
  private var pendingTime: Option[Long] = None

  override def hasNext: Boolean = written < peers.length || fill()

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException
    val row = output(withResults(peers(written), results))
    written += 1
    numOutputRows += 1
    row
  }

  private def timeOf(row: InternalRow): Option[Long] = time.eval(row) match {
    case null => None
    case t => Some(t.asInstanceOf[Long])
  }

  private def takePending(): Boolean = {
    if (pending == null) {
      if (!input.hasNext) return false
      val row = input.next()
      pending = row.copy()
      pendingKey = partitionKeys(row).copy()
      pendingTime = timeOf(row)
    }
    true
  }

  /** Reads the rows of the next time and computes their windows; false at the end of the input. */
  private def fill(): Boolean = {
    if (!takePending()) return false
    peers.clear()
    written = 0
    peers += pending
    val t = pendingTime
    if (groupKey == null || pendingKey != groupKey) {
      groupKey = pendingKey
      windows.reset()
      numGroups += 1
    }
    pending = null
    var more = true
    while (more && input.hasNext) {
      val row = input.next()
      val key = partitionKeys(row)
      val rowTime = timeOf(row)
      if (key == groupKey && rowTime == t) {
        peers += row.copy()
      } else {
        pending = row.copy()
        pendingKey = key.copy()
        pendingTime = rowTime
        more = false
      }
    }
    results = joined(windows.at(t, peers))
    true
  }

  /** The results of every size as one row, sizes in order. */
  private def joined(bySize: Array[InternalRow]): InternalRow =
    bySize.reduceRight[InternalRow]((older, newer) => new JoinedRow(older, newer))
}
