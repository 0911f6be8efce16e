package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider
import org.apache.spark.sql.internal.SQLConf

/**
 * How a streaming query's state is arranged in its store, chosen when the query first starts and
 * kept for its whole life (recorded with its [[WindowOperatorRecord]]), whatever Spark a restart
 * runs on:
 *  - `timeIndex`: a `time_index` column family says when each group is due (RocksDB on Spark 4;
 *    without it every group is visited in every micro-batch with a watermark);
 *  - `orderedRows`: a group's rows are kept ordered by time and read by range scan (RocksDB on
 *    Spark 4.2 and later); otherwise by prefix scan, then sorted.
 * A checkpoint can so move to a later Spark (it keeps its arrangement), not to one that lacks
 * what its arrangement needs (docs/compatibility.md). The column families and key encodings of
 * each arrangement: docs/state-format.md, sections "Versions and arrangements" and "Column
 * families and schemas".
 */
final case class StateArrangement(timeIndex: Boolean, orderedRows: Boolean) {
  require(timeIndex || !orderedRows, "ordered rows come with the time index")

  /** Why this Spark cannot run state arranged so, if it cannot. */
  def unsupportedHere: Option[String] =
    if (timeIndex && !StateStoreApi.hasColumnFamilies) {
      Some("a time index in a column family of the RocksDB state store (Spark 4.0 and later)")
    } else if (orderedRows && !OrderedRangeScan.supported) {
      Some("RocksDB state ordered by time within each group (Spark 4.2 and later)")
    } else None

  override def toString: String =
    if (orderedRows) "time index, ordered rows" else if (timeIndex) "time index" else "scan"
}

object StateArrangement {
  val rocksDbProvider: String = classOf[RocksDBStateStoreProvider].getName

  private def rocksDb(conf: SQLConf): Boolean = conf.getConf(SQLConf.STATE_STORE_PROVIDER_CLASS) == rocksDbProvider

  /** The arrangement a query started now gets from its state store provider and this Spark. */
  def forNewQuery(conf: SQLConf): StateArrangement = {
    // A time index in a column family: RocksDB on Spark 4 (Spark 3.5 has no column families).
    val timeIndex = rocksDb(conf) && StateStoreApi.hasColumnFamilies
    // Rows ordered by time for range scans: with a time index, on Spark 4.2 and later.
    StateArrangement(timeIndex, timeIndex && OrderedRangeScan.supported)
  }

  /**
   * The arrangement of a checkpoint whose record does not say: one written by release 0.1.0,
   * which ran on Spark 4.3 only, where RocksDB state had both.
   */
  def unrecorded(conf: SQLConf): StateArrangement = {
    StateArrangement(rocksDb(conf), rocksDb(conf))
  }
}
