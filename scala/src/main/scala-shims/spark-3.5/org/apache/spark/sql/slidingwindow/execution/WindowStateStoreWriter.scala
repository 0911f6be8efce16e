package org.apache.spark.sql.slidingwindow.execution

import scala.reflect.ClassTag

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.streaming.state.{StateStore, StateStoreOps}
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.{StateStoreWriter, WatermarkSupport}
import org.apache.spark.sql.slidingwindow.state.StateStoreSchema

/**
 * How the windowed operator opens its state stores, on Spark 3.5: one key space, prefix-scanned
 * by (group, kind); Spark 3.5 checks the key and value schemas itself when a store opens.
 */
trait WindowStateStoreWriter extends StateStoreWriter with WatermarkSupport {
  protected def stateLayout: StateStoreSchema
  protected def useColumnFamilies: Boolean
  protected def orderedRows: Boolean

  /**
   * `f` on each partition of `input` with its state store. The provider counts the rows: the
   * operator counts them itself only with a time index, which Spark 3.5 cannot have.
   */
  protected def mapPartitionsWithWindowState[U: ClassTag](input: RDD[InternalRow], providerCountsRows: Boolean)(
      f: (StateStore, Iterator[InternalRow]) => Iterator[U]): RDD[U] = {
    require(providerCountsRows, "Spark 3.5's stores count their rows")
    val layout = stateLayout
    new StateStoreOps(input).mapPartitionsWithStateStore(
      getStateInfo, layout.keySchema, layout.valueSchema, layout.keyEncoding(orderedRows),
      session.sessionState, Some(session.streams.stateStoreCoordinator))(f)
  }
}

object WindowStateStoreWriter {
  /** Whether the operator's stores may skip the provider's row count: not on Spark 3.5. */
  val storesMaySkipRowCount: Boolean = false
}
