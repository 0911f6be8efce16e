package org.apache.spark.sql.slidingwindow.harness

import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.execution.streaming.state.{StateStoreConf, StateStoreId, StateStoreProvider}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.execution.WindowStateStoreWriter
import org.apache.spark.sql.slidingwindow.state.StateStoreSchema

/**
 * How the harness opens a state store provider, on Spark 4: with column families where the
 * operator's arrangement has a time index, and with the operator's own store settings over the
 * session's, as a query opens it under `verifyRowCount` (the provider counts its rows, so that
 * each commit can check the operator's count against it).
 */
object ProviderInit {
  /** Whether this Spark's stores have column families (a time index). */
  val columnFamilies: Boolean = true

  def init(provider: StateStoreProvider, checkpoint: String, schema: StateStoreSchema, orderedRows: Boolean,
      useColumnFamilies: Boolean, session: SQLConf, hadoopConf: Configuration): Unit =
    provider.init(StateStoreId(checkpoint, 0, 0), schema.keySchema, schema.valueSchema,
      schema.keyEncoding(orderedRows), useColumnFamilies,
      new StateStoreConf(WindowStateStoreWriter.storeSettings(session, providerCountsRows = true)), hadoopConf)
}
