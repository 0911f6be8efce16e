package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, JoinedRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.ExternalAppendOnlyUnsafeRowArray
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.slidingwindow.windows.TrailingWindows

/**
 * The rows of a partition clustered by the partition keys and sorted by time within each group,
 * each with its trailing windows' aggregates. The rows of one time (peers) are aggregated as they
 * are read and held (in Spark's spillable row buffer, as Spark's WindowExec holds a partition)
 * until the next time comes, as each one's windows hold the others; then they are written out.
 *
 * @param partitionKeys the partition keys (rows are of one group while their keys are equal byte
 *                      for byte, as Spark's WindowExec compares them)
 * @param time          the time, bound to the input rows
 * @param output        the output row from an input row joined with every size's results
 * @param emitAfter     rows at a time at or before it are in the windows of later rows only, not
 *                      in the output (a stream's rows emitted by earlier micro-batches);
 *                      Long.MinValue writes every row out
 */
final class TrailingWindowIterator(
    partitionKeys: UnsafeProjection,
    time: Expression,
    windows: TrailingWindows,
    peers: ExternalAppendOnlyUnsafeRowArray,
    output: UnsafeProjection,
    input: Iterator[InternalRow],
    numGroups: SQLMetric,
    numOutputRows: SQLMetric,
    emitAfter: Long = Long.MinValue) extends Iterator[InternalRow] {

  private var groupKey: UnsafeRow = _
  private var written: Iterator[UnsafeRow] = Iterator.empty
  private var results: InternalRow = _
  private val withResults = new JoinedRow
  // The first row of the next time (or group), read while looking for the end of the peers.
  private var pending: UnsafeRow = _
  private var pendingKey: UnsafeRow = _
  private var pendingTime: Option[Long] = None

  override def hasNext: Boolean = {
    while (!written.hasNext) {
      if (!fill()) return false
    }
    true
  }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException
    numOutputRows += 1
    output(withResults(written.next(), results))
  }

  private def timeOf(row: InternalRow): Option[Long] = time.eval(row) match {
    case null => None
    case t => Some(t.asInstanceOf[Long])
  }

  private def read(row: InternalRow): Unit = {
    pending = row.asInstanceOf[UnsafeRow]
    pendingKey = partitionKeys(row)
    pendingTime = timeOf(row)
  }

  /**
   * Reads the rows of the next time and computes their windows (the rows to write out, if any, in
   * `written`); false at the end of the input.
   */
  private def fill(): Boolean = {
    if (pending == null) {
      if (!input.hasNext) return false
      read(input.next())
    }
    if (groupKey == null || pendingKey != groupKey) {
      groupKey = pendingKey.copy()
      windows.reset()
      numGroups += 1
    }
    val t = pendingTime
    val emit = t.forall(_ > emitAfter)
    peers.clear()
    if (emit) peers.add(pending)
    windows.begin(pending)
    pending = null
    var more = true
    while (more && input.hasNext) {
      read(input.next())
      if (pendingKey == groupKey && pendingTime == t) {
        if (emit) peers.add(pending)
        windows.add(pending)
        pending = null
      } else {
        more = false
      }
    }
    // The next time's first row stays readable: the input's row is reused by its next row only.
    if (pending != null) {
      pending = pending.copy()
      pendingKey = pendingKey.copy()
    }
    results = joined(windows.results(t))
    written = if (emit) peers.generateIterator() else Iterator.empty
    true
  }

  /** The results of every size as one row, sizes in order. */
  private def joined(bySize: Array[InternalRow]): InternalRow =
    bySize.reduceRight[InternalRow]((older, newer) => new JoinedRow(older, newer))
}
