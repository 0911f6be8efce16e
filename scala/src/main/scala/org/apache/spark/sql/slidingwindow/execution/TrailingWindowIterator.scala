package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{JoinedRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.ExternalAppendOnlyUnsafeRowArray
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.slidingwindow.windows.TrailingWindows

/**
 * The rows of a partition clustered by the partition keys and sorted by time within each group,
 * each with its trailing windows' aggregates. The rows of one time (peers) are aggregated as they
 * are read and held (in Spark's spillable row buffer, as Spark's WindowExec holds a partition)
 * until the next time comes, as each one's windows hold the others; then they are written out. A
 * time of one row, the common case, is not copied into the buffer: the row read ahead is kept.
 *
 * @param partitionKeys the partition keys (rows are of one group while their keys are equal byte
 *                      for byte, as Spark's WindowExec compares them)
 * @param timeOf        the time (microseconds, or null) of an input row, as a one-column row: generated
 *                      code (an interpreted `eval` boxed every row's time)
 * @param output        the output row from an input row joined with every size's results
 */
final class TrailingWindowIterator(
    partitionKeys: UnsafeProjection,
    timeOf: UnsafeProjection,
    windows: TrailingWindows,
    peers: ExternalAppendOnlyUnsafeRowArray,
    output: UnsafeProjection,
    input: Iterator[InternalRow],
    numGroups: SQLMetric,
    numOutputRows: SQLMetric) extends Iterator[InternalRow] {

  private var groupKey: UnsafeRow = _
  private var written: Iterator[UnsafeRow] = Iterator.empty
  private var results: InternalRow = _
  private val withResults = new JoinedRow
  // The results of every frame as one row, frames in order: a chain of JoinedRows made once.
  private val chain = new ResultsChain
  // The first row of the next time (or group), read while looking for the end of the peers; its
  // time (none: null).
  private var pending: UnsafeRow = _
  private var pendingKey: UnsafeRow = _
  private var pendingTime = 0L
  private var pendingHasTime = false
  // The time's only row, while it has one (then `peers` holds its rows).
  private val one = new OneRow

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

  private def read(row: InternalRow): Unit = {
    pending = row.asInstanceOf[UnsafeRow]
    pendingKey = partitionKeys(row)
    val time = timeOf(row)
    pendingHasTime = !time.isNullAt(0)
    if (pendingHasTime) pendingTime = time.getLong(0)
  }

  /**
   * Reads the rows of the next time and computes their windows (the rows to write out, if any, in
   * `written`); false at the end of the input.
   */
  private def fill(): Boolean = {
    // A row read ahead by the last fill is a copy of ours; a row read now, the input's own, which
    // its next row may reuse.
    val readAhead = pending != null
    if (!readAhead) {
      if (!input.hasNext) return false
      read(input.next())
    }
    if (groupKey == null || pendingKey != groupKey) {
      groupKey = pendingKey.copy()
      windows.reset(groupKey)
      numGroups += 1
    }
    val t = pendingTime
    val hasTime = pendingHasTime
    val first = if (readAhead) pending else pending.copy()
    var buffered = false
    windows.begin(first, hasTime, t)
    pending = null
    var more = true
    while (more && input.hasNext) {
      read(input.next())
      if (pendingKey == groupKey && pendingHasTime == hasTime && (!hasTime || pendingTime == t)) {
        if (!buffered) {
          peers.clear()
          peers.add(first)
          buffered = true
        }
        peers.add(pending)
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
    results = chain(windows.results(hasTime, t))
    written = if (buffered) peers.generateIterator() else one.of(first)
    true
  }
}

/** The results of every frame as one row, frames in order, through JoinedRows made once. */
private final class ResultsChain {
  private var links: Array[JoinedRow] = _

  def apply(byFrame: Array[InternalRow]): InternalRow = {
    val n = byFrame.length
    if (n == 1) return byFrame(0)
    if (links == null) links = Array.fill(n - 1)(new JoinedRow)
    // links(i) joins frame i with the rest: the last link joins the two last frames.
    var rest = byFrame(n - 1)
    var i = n - 2
    while (i >= 0) {
      rest = links(i)(byFrame(i), rest)
      i -= 1
    }
    rest
  }
}

/** An iterator over one row, made once and given each time's only row. */
private final class OneRow extends Iterator[UnsafeRow] {
  private var row: UnsafeRow = _

  def of(r: UnsafeRow): OneRow = {
    row = r
    this
  }

  override def hasNext: Boolean = row != null

  override def next(): UnsafeRow = {
    if (row == null) throw new NoSuchElementException
    val r = row
    row = null
    r
  }
}
