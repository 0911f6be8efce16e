package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * State format 2 (release 0.2.0): each group's rows in one record ([[GroupRecordSession]]), with
 * the chunks of large groups ([[RecordChunks]]) and its next visit ([[RecordVisitTimers]]); with a
 * time index, the row of the commit ([[CommitRow]]: the operator's count of its rows, the token of
 * the records cached on the executor, the count of the index's entries).
 *
 * @param verify for the tests: each commit checks the count of the time index's entries against
 *               the entries themselves (read all), and the operator's row count against the
 *               provider's, which then counts them too
 */
private[state] final class WindowStateV2(store: StateStore, layout: WindowStateLayout,
    arrangement: StateArrangement, watermark: Option[Long], limits: RecordLimits, recordCacheBytes: Long,
    verify: Boolean) extends WindowState(store, layout) {

  // The column families, in the order they are created: time_index, chunks, row_count.
  private val keyed = new KeyedRows(store, layout, codec, counters, arrangement.orderedRows)
  private val entries: EntryTimers =
    if (arrangement.timeIndex) new TimeIndexTimers(store, layout, counters, watermark)
    else new EveryGroupTimers(store, layout, codec, watermark)
  private val chunkFamily = if (arrangement.timeIndex) {
    StateStoreApi.createFamily(store, layout.chunkFamily, layout.keySchema, layout.valueSchema,
      layout.keyEncoding(ordered = false))
    layout.chunkFamily
  } else layout.dataFamily
  // With a time index (RocksDB), the rows are counted here, not by the provider.
  private val commitRow = if (arrangement.timeIndex) Some(new CommitRow(store)) else None

  private val chunks = new RecordChunks(RecordChunks.store(store, codec, chunkFamily), codec, counters, limits,
    layout.numBufferFields)
  private val session = new GroupRecordSession(store, layout, codec, counters, keyed, chunks, limits,
    commitRow, recordCacheBytes)
  private val recordTimers = new RecordVisitTimers(session, entries, commitRow, watermark, verify)

  override def rows: GroupRows = session
  override def timers: VisitTimers = recordTimers

  override def open(group: UnsafeRow): Unit = {
    session.open(group)
    recordTimers.opened()
  }

  override def close(): Unit = {
    recordTimers.closing()
    session.close()
  }

  override def resweepable: Boolean = session.resweepable
  override def flipsRemovePartials: Boolean = true
  override def claimsVisitsAtIngestion: Boolean = true

  private def rowCount: Option[Long] = commitRow.map(_.stored + counters.created - counters.removed)
  override def metrics: StateMetrics = counters.snapshot(rowCount)

  override def commit(): Unit = {
    commitRow.foreach { row =>
      val entryCount = recordTimers.entryCount
      if (verify && entryCount != entries.countEntries()) {
        throw new IllegalStateException(
          s"time index entries counted: $entryCount, in the index: ${entries.countEntries()}")
      }
      row.save(rowCount.get, if (session.cache != null) session.cache.token else 0L, entryCount)
    }
    store.commit()
    if (session.cache != null) RecordCache.publish(store.id, session.cache, recordCacheBytes)
    if (verify) rowCount.foreach { count =>
      OperatorState.checkRowCount(store, count + 1, s"$count (and the count's own row)")
    }
  }
}
