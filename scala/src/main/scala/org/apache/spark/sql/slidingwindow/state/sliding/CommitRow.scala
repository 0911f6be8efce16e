package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.types.{IntegerType, LongType, StructField, StructType}

/**
 * State format 2 with a time index (RocksDB on Spark 4): the row each commit writes beside the
 * groups' rows, in a column family of its own (`row_count`, one row), so that what it says is
 * exact at every version the checkpoint holds: the number of state rows of the partition's store,
 * counted by the operator; the token of the commit; the number of entries of the time index.
 *
 * Spark's RocksDB provider counts the keys it holds by reading every key before it writes or
 * deletes it (`trackTotalNumberOfRows`): for this operator, whose writes mostly replace a group's
 * record, that read was a tenth of a micro-batch's CPU. The operator knows which of its writes
 * create a row and which replace one ([[StateMetrics.rowsCreated]]), so it opens its stores
 * with that tracking off and reports this count as `numRowsTotal` instead.
 *
 * The same row holds the token of the commit that wrote it, which says whether the records an
 * executor cached are those of the version opened ([[RecordCache]]), and the number of entries
 * of the time index, which says when none is left for [[VisitTimers.due]] to find
 * ([[RecordVisitTimers]]). Its schema and what each field counts: docs/state-format.md, sections
 * "Column families and schemas" and "Invariants", 8 to 11.
 */
private[state] final class CommitRow(store: StateStore) {
  import CommitRow._

  StateStoreApi.createFamily(store, Family, KeySchema, ValueSchema, StateStoreApi.plainKeys(KeySchema))

  private val key = {
    val row = new UnsafeRow(1)
    row.pointTo(new Array[Byte](16), 16)
    row.setInt(0, 0)
    row
  }

  private lazy val value = Option(StateStoreApi.get(store, key, Family)).map(_.copy()).orNull

  /** The count the store's version holds (0 for a store that has none yet). */
  def stored: Long = if (value == null) 0L else value.getLong(0)

  /** The token of the commit that wrote the store's version (0: none). */
  def token: Long = if (value == null) 0L else value.getLong(1)

  /**
   * The entries of the time index at the store's version: 0 for a store that has no count yet
   * (no commit wrote one: the index is empty too).
   */
  def indexEntries: Long = if (value == null) 0L else value.getLong(2)

  /**
   * Writes `count`, the commit's `token` and the time index's `indexEntries` into the store
   * (before it commits).
   */
  def save(count: Long, token: Long, indexEntries: Long): Unit = {
    val value = new UnsafeRow(3)
    value.pointTo(new Array[Byte](ValueBytes), ValueBytes)
    value.setLong(0, count)
    value.setLong(1, token)
    value.setLong(2, indexEntries)
    StateStoreApi.put(store, key, value, Family)
  }
}

private[state] object CommitRow {
  val Family = "row_count"
  private val KeySchema = StructType(Seq(StructField("__id", IntegerType, nullable = false)))
  private val ValueSchema = StructType(Seq(StructField("__rows", LongType, nullable = false),
    StructField("__token", LongType, nullable = false), StructField("__indexEntries", LongType, nullable = false)))
  private val ValueBytes = 32
}
