package org.apache.spark.sql.slidingwindow.harness

import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.execution.streaming.state.{StateStoreConf, StateStoreId, StateStoreProvider}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.state.StateStoreSchema

/**
 * How the harness opens a state store provider, on Spark 3.5: one key space (no column
 * families), keys prefix-scanned by their first columns, the session's settings as they are (the
 * provider counts its rows: Spark 3.5's operators never skip that count).
 */
object ProviderInit {
  /** Whether this Spark's stores have column families (a time index). */
  val columnFamilies: Boolean = false

  def init(provider: StateStoreProvider, checkpoint: String, schema: StateStoreSchema, orderedRows: Boolean,
      useColumnFamilies: Boolean, session: SQLConf, hadoopConf: Configuration): Unit = {
    require(!useColumnFamilies, "Spark 3.5's stores have no column families")
    provider.init(StateStoreId(checkpoint, 0, 0), schema.keySchema, schema.valueSchema,
      schema.keyEncoding(orderedRows), new StateStoreConf(session), hadoopConf)
  }
}
