package org.apache.spark.sql.slidingwindow.state

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * Finds stored partials by time: the groups that hold a time up to a bound (their windows may
 * close), and the (group, time) entries older than a bound (no open window needs them).
 */
sealed trait WindowTimeIndex {
  /** A new (group, time) data key was stored. */
  def added(dataKey: UnsafeRow): Unit
  /** A (group, time) data key is being removed from the data. */
  def removed(dataKey: UnsafeRow): Unit
  /** Distinct groups with a stored time <= `maxTime`. */
  def groupsUpTo(maxTime: Long): Seq[UnsafeRow]
  /** Removes every entry with time < `bound`; returns how many. */
  def removeBefore(bound: Long): Long
  /** The (time, value) entries of a group with `from <= time <= to`, in no particular order. */
  def groupEntries(group: UnsafeRow, from: Long, to: Long): Iterator[(Long, UnsafeRow)]
}

object WindowTimeIndex {
  def apply(store: StateStore, layout: WindowStateLayout, ordered: Boolean): WindowTimeIndex =
    if (ordered) new Ordered(store, layout) else new Scanning(store, layout)

  /** RocksDB: a column family ordered by time; reads stop at the bound. */
  private final class Ordered(store: StateStore, layout: WindowStateLayout) extends WindowTimeIndex {
    store.createColFamilyIfAbsent(layout.indexFamily, layout.indexKeySchema,
      layout.indexValueSchema, layout.indexEncoder)
    private val indexOfData = layout.indexOfData()
    private val dataOfIndex = layout.dataOfIndex()
    private val groupOfIndex = layout.groupOfIndex()
    private val nothing = {
      val row = new UnsafeRow(1)
      row.pointTo(new Array[Byte](16), 16)
      row.setNullAt(0)
      row
    }

    private val dataKeyOf = layout.dataKeyOfGroup()

    override def added(dataKey: UnsafeRow): Unit =
      store.put(indexOfData(dataKey), nothing, layout.indexFamily)

    override def groupEntries(group: UnsafeRow, from: Long, to: Long): Iterator[(Long, UnsafeRow)] = {
      val iter =
        if (to == Long.MaxValue) {
          store.prefixScan(group, layout.dataFamily)
        } else { // range scans are end-exclusive
          val start = dataKeyOf(group, from).copy()
          store.rangeScan(Some(start), Some(dataKeyOf(group, to + 1).copy()), layout.dataFamily)
        }
      try {
        iter.map(p => (p.key.getLong(layout.groupWidth), p.value))
          .collect { case (t, v) if t >= from && t <= to => (t, v.copy()) }
          .toArray.iterator
      } finally iter.close()
    }

    override def removed(dataKey: UnsafeRow): Unit =
      store.remove(indexOfData(dataKey), layout.indexFamily)

    /** Index entries in time order while `take(time)`, copied. */
    private def headWhile(take: Long => Boolean): Seq[UnsafeRow] = {
      val out = mutable.ArrayBuffer.empty[UnsafeRow]
      val iter = store.iterator(layout.indexFamily)
      try {
        var more = true
        while (more && iter.hasNext) {
          val entry = iter.next().key
          if (take(entry.getLong(0))) out += entry.copy() else more = false
        }
      } finally iter.close()
      out.toSeq
    }

    override def groupsUpTo(maxTime: Long): Seq[UnsafeRow] =
      headWhile(_ <= maxTime).map(e => groupOfIndex(e).copy()).distinct

    override def removeBefore(bound: Long): Long = {
      val expired = headWhile(_ < bound)
      expired.foreach { entry =>
        store.remove(entry, layout.indexFamily)
        store.remove(dataOfIndex(entry), layout.dataFamily)
      }
      expired.length
    }
  }

  /**
   * Providers without column families or ordered scans (Spark's default, HDFS-backed): the data
   * itself is scanned. Cost grows with the state, which holds only what open windows need.
   */
  private final class Scanning(store: StateStore, layout: WindowStateLayout) extends WindowTimeIndex {
    private val groupOfData = layout.groupOfData()
    private val time = layout.groupWidth

    override def added(dataKey: UnsafeRow): Unit = ()

    override def groupEntries(group: UnsafeRow, from: Long, to: Long): Iterator[(Long, UnsafeRow)] = {
      val iter = store.prefixScan(group, layout.dataFamily)
      try {
        iter.map(p => (p.key.getLong(time), p.value))
          .collect { case (t, v) if t >= from && t <= to => (t, v.copy()) }
          .toArray.iterator
      } finally iter.close()
    }
    override def removed(dataKey: UnsafeRow): Unit = ()

    private def dataKeysWhere(take: Long => Boolean): Seq[UnsafeRow] = {
      val out = mutable.ArrayBuffer.empty[UnsafeRow]
      val iter = store.iterator(layout.dataFamily)
      try iter.foreach(p => if (take(p.key.getLong(time))) out += p.key.copy())
      finally iter.close()
      out.toSeq
    }

    override def groupsUpTo(maxTime: Long): Seq[UnsafeRow] =
      dataKeysWhere(_ <= maxTime).map(k => groupOfData(k).copy()).distinct

    override def removeBefore(bound: Long): Long = {
      val expired = dataKeysWhere(_ < bound)
      expired.foreach(store.remove(_, layout.dataFamily))
      expired.length
    }
  }
}
