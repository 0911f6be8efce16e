package org.apache.spark.sql.slidingwindow.execution

import java.util.{HashMap => JHashMap}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.state.trailing.PendingParts

/**
 * The Pending rows a micro-batch makes due, read and handed on in steps: a step reads the due
 * buckets that come next until their parts and rows take `stepBytes` (or the buckets end,
 * [[PendingParts.readStep]]), sorts their rows by (group, time, seq) and hands them on as they are
 * pulled; the next step first lets [[PendingParts.finish]] remove the parts the last one read. A
 * step hands on only rows before those of the steps after it, so each group's rows come in time
 * order across steps (a group of several steps resumes its frames from the state at each), and a
 * backlog of any size takes the heap of one step: the parts of at least one bucket.
 *
 * @param groupOf the group of a Pending key
 * @param noteDue  told the time of each row due as it is read
 */
private[execution] final class TrailingDueSteps(pending: PendingParts, groupOf: UnsafeProjection,
    stepBytes: Long, noteDue: Long => Unit) extends Iterator[InternalRow] {

  private val groups = new JHashMap[UnsafeRow, Integer]
  private var groupIds = new Array[Int](64)
  private var times = new Array[Long](64)
  private var seqs = new Array[Long](64)
  private var values = new Array[InternalRow](64)
  private var n = 0
  private var order: Array[Int] = Array.emptyIntArray
  private var at = 0

  private var lastKey: UnsafeRow = _
  private var lastGroup = 0

  private val take = new PendingParts.Due {
    override def apply(key: UnsafeRow, t: Long, seq: Long, row: InternalRow): Unit = {
      if (n == times.length) {
        groupIds = java.util.Arrays.copyOf(groupIds, 2 * n)
        times = java.util.Arrays.copyOf(times, 2 * n)
        seqs = java.util.Arrays.copyOf(seqs, 2 * n)
        values = java.util.Arrays.copyOf(values, 2 * n)
      }
      // A part's rows come one after the other with its key: its group is looked up once.
      if (key ne lastKey) {
        lastKey = key
        val g = groupOf(key)
        var id = groups.get(g)
        if (id == null) {
          id = groups.size
          groups.put(g.copy(), id)
        }
        lastGroup = id
      }
      groupIds(n) = lastGroup
      times(n) = t
      seqs(n) = seq
      values(n) = row
      n += 1
      noteDue(t)
    }
  }

  override def hasNext: Boolean = {
    while (at == n && pending.moreDue) step()
    at < n
  }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException
    val row = values(order(at))
    at += 1
    row
  }

  /** Reads the next buckets, up to `stepBytes` of parts and rows, and sorts their rows due. */
  private def step(): Unit = {
    // The last step's rows are handed on: its parts go, and so do the references to its rows.
    pending.finish()
    java.util.Arrays.fill(values.asInstanceOf[Array[AnyRef]], 0, n, null)
    groups.clear()
    lastKey = null
    n = 0
    at = 0
    pending.readStep(stepBytes, TrailingDueSteps.RowOverhead, take)
    order = TrailingFramesProcessor.order(groupIds, times, seqs, n)
  }
}

private[slidingwindow] object TrailingDueSteps {
  /** The heap a row due takes besides its bytes: its UnsafeRow and its slots in the step's arrays. */
  val RowOverhead = 72L

  /**
   * Internal, for tests: the heap a step of the rows due takes, their parts' bytes and
   * [[RowOverhead]] per row, once it has read at least one bucket (by default
   * [[DefaultStepBytes]]), so that small streams take several steps.
   */
  val stepBytesKey = "spark.sql.slidingWindow.trailingWindows.state.dueStepBytes"
  val DefaultStepBytes: Long = 16L << 20

  def stepBytes(conf: SQLConf): Long = conf.getConfString(stepBytesKey, DefaultStepBytes.toString).toLong
}
