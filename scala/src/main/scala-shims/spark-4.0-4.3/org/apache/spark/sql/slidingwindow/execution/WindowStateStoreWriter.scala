package org.apache.spark.sql.slidingwindow.execution

import scala.reflect.ClassTag

import org.apache.hadoop.conf.Configuration

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.streaming.state.{StateSchemaCompatibilityChecker, StateSchemaValidationResult, StateStore, StateStoreColFamilySchema, StateStoreConf}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.{StateStoreWriter, WatermarkSupport}
import org.apache.spark.sql.slidingwindow.state.StateStoreSchema

/**
 * How the windowed operator opens its state stores and checks their schema, on Spark 4: a store
 * with column families (the time index) where [[useColumnFamilies]], the data's key encoding in
 * the schema file.
 */
trait WindowStateStoreWriter extends StateStoreWriter with WatermarkSupport {
  protected def stateLayout: StateStoreSchema
  protected def useColumnFamilies: Boolean
  protected def orderedRows: Boolean

  override def validateAndMaybeEvolveStateSchema(
      hadoopConf: Configuration, batchId: Long, stateSchemaVersion: Int): List[StateSchemaValidationResult] = {
    // Schema format v2 records one column family: the data, not the time index.
    val layout = stateLayout
    val data = StateStoreColFamilySchema(layout.dataFamily, 0.toShort, layout.keySchema,
      0.toShort, layout.valueSchema, Some(layout.keyEncoding(orderedRows)), None)
    List(StateSchemaCompatibilityChecker.validateAndMaybeEvolveStateSchema(
      getStateInfo, hadoopConf, List(data), session.sessionState, stateSchemaVersion))
  }

  /**
   * `f` on each partition of `input` with its state store, opened with the operator's own store
   * settings over the session's:
   *  - with `providerCountsRows` false, the store does not count its keys (RocksDB's
   *    `trackTotalNumberOfRows`: a read of every key before it is written or deleted), as the
   *    operator counts its rows itself;
   *  - RocksDB's changelog checkpointing is on, unless the session sets it: a commit writes the
   *    micro-batch's changes instead of flushing and copying RocksDB's files, whose cost follows
   *    the bytes of the state, and a sliding window keeps a partial per distinct time where a
   *    tumbling window keeps one row (docs/performance.md). Spark restarts a checkpoint written
   *    either way with the other.
   */
  protected def mapPartitionsWithWindowState[U: ClassTag](input: RDD[InternalRow], providerCountsRows: Boolean)(
      f: (StateStore, Iterator[InternalRow]) => Iterator[U]): RDD[U] = {
    val layout = stateLayout
    val conf = WindowStateStoreWriter.storeSettings(session.sessionState.conf, providerCountsRows)
    new WindowStateStoreRDD(input, f, getStateInfo, layout.keySchema, layout.valueSchema,
      layout.keyEncoding(orderedRows), session.sessionState, Some(session.streams.stateStoreCoordinator),
      useColumnFamilies, new StateStoreConf(conf))
  }
}

object WindowStateStoreWriter {
  /** Whether the operator's stores may skip the provider's row count (`trackRowsKey`). */
  val storesMaySkipRowCount: Boolean = true

  val trackRowsKey = "spark.sql.streaming.stateStore.rocksdb.trackTotalNumberOfRows"
  val changelogKey = "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled"

  /** The settings the operator's stores are opened with: the session's, and its own above. */
  def storeSettings(session: SQLConf, providerCountsRows: Boolean): SQLConf = {
    val conf = session.clone()
    if (!providerCountsRows) conf.setConfString(trackRowsKey, "false")
    if (!session.contains(changelogKey)) conf.setConfString(changelogKey, "true")
    conf
  }
}
