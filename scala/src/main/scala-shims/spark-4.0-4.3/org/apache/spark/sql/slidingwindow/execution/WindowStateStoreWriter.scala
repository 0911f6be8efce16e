package org.apache.spark.sql.slidingwindow.execution

import scala.reflect.ClassTag

import org.apache.hadoop.conf.Configuration

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.streaming.state.{StateSchemaCompatibilityChecker, StateSchemaValidationResult, StateStore, StateStoreColFamilySchema, StateStoreConf, StateStoreOps}
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.{StateStoreWriter, WatermarkSupport}
import org.apache.spark.sql.slidingwindow.state.WindowStateLayout

/**
 * How the windowed operator opens its state stores and checks their schema, on Spark 4: a store
 * with column families (the time index) where [[useColumnFamilies]], the data's key encoding in
 * the schema file.
 */
trait WindowStateStoreWriter extends StateStoreWriter with WatermarkSupport {
  protected def stateLayout: WindowStateLayout
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
   * `f` on each partition of `input` with its state store; with `providerCountsRows` false, the
   * store does not count its keys (RocksDB's `trackTotalNumberOfRows`: a read of every key
   * before it is written or deleted), as the operator counts its rows itself.
   */
  protected def mapPartitionsWithWindowState[U: ClassTag](input: RDD[InternalRow], providerCountsRows: Boolean)(
      f: (StateStore, Iterator[InternalRow]) => Iterator[U]): RDD[U] = {
    val layout = stateLayout
    if (providerCountsRows) {
      new StateStoreOps(input).mapPartitionsWithStateStore(
        getStateInfo, layout.keySchema, layout.valueSchema, layout.keyEncoding(orderedRows),
        session.sessionState, Some(session.streams.stateStoreCoordinator),
        useColumnFamilies = useColumnFamilies)(f)
    } else {
      val conf = session.sessionState.conf.clone()
      conf.setConfString(WindowStateStoreWriter.trackRowsKey, "false")
      new WindowStateStoreRDD(input, f, getStateInfo, layout.keySchema, layout.valueSchema,
        layout.keyEncoding(orderedRows), session.sessionState, Some(session.streams.stateStoreCoordinator),
        useColumnFamilies, new StateStoreConf(conf))
    }
  }
}

object WindowStateStoreWriter {
  val trackRowsKey = "spark.sql.streaming.stateStore.rocksdb.trackTotalNumberOfRows"
}
