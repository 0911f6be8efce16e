package org.apache.spark.sql.slidingwindow.state

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.{RocksDBStateStoreProvider, StateStore, StateStoreIterator, UnsafeRowPair}
import org.apache.spark.sql.internal.SQLConf

/**
 * A partition's state store as a streaming windowed aggregation uses it ([[WindowStateLayout]]):
 * a group's rows by kind and time, and when each group must be visited again.
 *
 * Reads and writes are counted ([[rowsRead]], [[rowsWritten]]): a micro-batch's state work is in
 * proportion to its input and output, not to the state it keeps, and these counts show it.
 */
sealed abstract class WindowStateStore(val store: StateStore, val layout: WindowStateLayout) {
  val codec: WindowStateCodec = layout.codec()

  var rowsRead = 0L
  var rowsWritten = 0L
  var rowsRemoved = 0L

  /** The value of a row, or null. Valid until the next read. */
  def get(group: InternalRow, kind: Int, time: Long): UnsafeRow = {
    val value = store.get(codec.key(group, kind, time), layout.dataFamily)
    if (value != null) rowsRead += 1
    value
  }

  def put(group: InternalRow, kind: Int, time: Long, value: UnsafeRow): Unit = {
    store.put(codec.key(group, kind, time), value, layout.dataFamily)
    rowsWritten += 1
  }

  def remove(group: InternalRow, kind: Int, time: Long): Unit = {
    store.remove(codec.key(group, kind, time), layout.dataFamily)
    rowsRemoved += 1
  }

  /** A group's rows of `kind` with `from <= time <= to`, in ascending time. */
  def rows(group: InternalRow, kind: Int, from: Long, to: Long): RowCursor

  /** The group must be visited once the watermark reaches `time`. */
  def schedule(time: Long, group: InternalRow): Unit

  /** Takes back a [[schedule]] that is no longer needed. */
  def unschedule(time: Long, group: InternalRow): Unit

  /**
   * The groups to visit under `watermark`, each once, read as they are pulled; their schedule
   * entries are consumed. A visit may schedule the group again, always later than `watermark`.
   */
  def due(watermark: Long): Iterator[UnsafeRow]

  protected final class PairCursor(iter: StateStoreIterator[UnsafeRowPair], from: Long, to: Long)
    extends RowCursor {
    override def next(): Boolean = {
      while (iter.hasNext) {
        val pair = iter.next()
        val t = codec.timeOfKey(pair.key)
        if (t >= from && t <= to) {
          rowsRead += 1
          set(t, pair.value)
          return true
        }
      }
      false
    }
    override def close(): Unit = iter.close()
  }
}

object WindowStateStore {
  val rocksDbProvider: String = classOf[RocksDBStateStoreProvider].getName

  /**
   * Whether the state is kept in time order with a time index: RocksDB keeps a time-ordered
   * index in a column family and the data ordered by time within a group; other providers scan.
   */
  def ordered(conf: SQLConf): Boolean = conf.getConf(SQLConf.STATE_STORE_PROVIDER_CLASS) == rocksDbProvider

  def apply(store: StateStore, layout: WindowStateLayout, ordered: Boolean): WindowStateStore =
    if (ordered) new Ordered(store, layout) else new Scanning(store, layout)

  /** RocksDB: range scans within a group, and the time index column family. */
  private final class Ordered(store: StateStore, layout: WindowStateLayout)
    extends WindowStateStore(store, layout) {
    store.createColFamilyIfAbsent(layout.indexFamily, layout.indexKeySchema,
      layout.indexValueSchema, layout.indexEncoder)

    private val nothing = {
      val row = new UnsafeRow(1)
      row.pointTo(new Array[Byte](16), 16)
      row.setNullAt(0)
      row
    }

    override def rows(group: InternalRow, kind: Int, from: Long, to: Long): RowCursor = {
      // Range scans are end-exclusive; no time is Long.MaxValue (window bounds must fit).
      val start = codec.key(group, kind, from).copy()
      val end = codec.key(group, kind, if (to == Long.MaxValue) to else to + 1).copy()
      new PairCursor(store.rangeScan(Some(start), Some(end), layout.dataFamily), from, to)
    }

    override def schedule(time: Long, group: InternalRow): Unit = {
      store.put(codec.indexKey(time, group), nothing, layout.indexFamily)
      rowsWritten += 1
    }

    override def unschedule(time: Long, group: InternalRow): Unit = {
      store.remove(codec.indexKey(time, group), layout.indexFamily)
      rowsRemoved += 1
    }

    /**
     * The head of the index, read with one iterator as the groups are pulled: each entry at or
     * below the watermark is removed as it is read, as Spark's StateStoreSaveExec removes the
     * rows it evicts while it iterates. Schedules that visits write are later than the
     * watermark, past the entries read. A group can have several entries due; only the groups
     * visited are remembered (one key per group, no entry), to visit each once.
     */
    override def due(watermark: Long): Iterator[UnsafeRow] = new Iterator[UnsafeRow] {
      private val visited = mutable.HashSet.empty[UnsafeRow]
      private var entries = store.iterator(layout.indexFamily)
      private var nextGroup: UnsafeRow = _

      override def hasNext: Boolean = {
        while (nextGroup == null && entries != null) {
          val key = if (entries.hasNext) entries.next().key else null
          if (key == null || codec.timeOfIndex(key) > watermark) {
            entries.close()
            entries = null
          } else {
            rowsRead += 1
            val group = codec.groupOfIndex(key).copy()
            store.remove(key, layout.indexFamily)
            rowsRemoved += 1
            if (visited.add(group)) nextGroup = group
          }
        }
        nextGroup != null
      }

      override def next(): UnsafeRow = {
        if (!hasNext) throw new NoSuchElementException
        val group = nextGroup
        nextGroup = null
        group
      }
    }
  }

  /**
   * Providers without column families or ordered scans (Spark's default, HDFS-backed): a group's
   * rows are read by prefix scan and sorted, and every group is visited in every micro-batch that
   * has a watermark. Cost grows with the state, which holds only what open windows need.
   */
  private final class Scanning(store: StateStore, layout: WindowStateLayout)
    extends WindowStateStore(store, layout) {

    override def rows(group: InternalRow, kind: Int, from: Long, to: Long): RowCursor = {
      val prefix = codec.prefix(group, kind)
      val found = mutable.ArrayBuffer.empty[(Long, UnsafeRow)]
      val iter = store.prefixScan(prefix, layout.dataFamily)
      try iter.foreach { pair =>
        val t = codec.timeOfKey(pair.key)
        if (t >= from && t <= to) found += ((t, pair.value.copy()))
      } finally iter.close()
      rowsRead += found.length
      RowCursor.of(found.sortBy(_._1).iterator)
    }

    override def schedule(time: Long, group: InternalRow): Unit = ()
    override def unschedule(time: Long, group: InternalRow): Unit = ()

    // Collected first: visits write rows of the groups, and this provider keeps its whole state
    // in memory anyway.
    override def due(watermark: Long): Iterator[UnsafeRow] = {
      val groups = mutable.LinkedHashSet.empty[UnsafeRow]
      val iter = store.iterator(layout.dataFamily)
      try iter.foreach(pair => groups += codec.groupOfKey(pair.key).copy())
      finally iter.close()
      groups.iterator
    }
  }
}

/** A forward cursor over (time, value) rows: `next()` moves to the next row, if any. */
abstract class RowCursor {
  private var currentTime = 0L
  private var currentValue: UnsafeRow = _

  def next(): Boolean
  def close(): Unit = ()

  /** Time and value of the current row; the value is valid until `next()`. */
  def time: Long = currentTime
  def value: UnsafeRow = currentValue

  protected def set(time: Long, value: UnsafeRow): Unit = {
    currentTime = time
    currentValue = value
  }
}

object RowCursor {
  def of(rows: Iterator[(Long, UnsafeRow)]): RowCursor = new RowCursor {
    override def next(): Boolean =
      if (rows.hasNext) { val (t, v) = rows.next(); set(t, v); true } else false
  }
}
