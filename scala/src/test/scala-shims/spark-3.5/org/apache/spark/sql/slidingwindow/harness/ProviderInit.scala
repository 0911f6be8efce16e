package org.apache.spark.sql.slidingwindow.harness

import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.execution.streaming.state.{StateStoreConf, StateStoreId, StateStoreProvider}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.state.StateStoreSchema

/**
 * How the harness opens a state store provider, on Spark 3.5: one key space (no column
 * families), keys prefix-scanned by their first columns, the session's settings (the provider
 * counts its rows: Spark 3.5's operators never skip that count), with RocksDB's changelog
 * checkpointing on unless the stream sets it: off, each commit flushes RocksDB and copies its
 * files, which the streams choose now and then, not at every micro-batch.
 */
object ProviderInit {
  private val changelogKey = "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled"

  /** Whether this Spark's stores have column families (a time index). */
  val columnFamilies: Boolean = false

  def init(provider: StateStoreProvider, checkpoint: String, schema: StateStoreSchema, orderedRows: Boolean,
      useColumnFamilies: Boolean, session: SQLConf, hadoopConf: Configuration): Unit = {
    require(!useColumnFamilies, "Spark 3.5's stores have no column families")
    val conf = session.clone()
    if (!session.contains(changelogKey)) conf.setConfString(changelogKey, "true")
    provider.init(StateStoreId(checkpoint, 0, 0), schema.keySchema, schema.valueSchema,
      schema.keyEncoding(orderedRows), new StateStoreConf(conf), hadoopConf)
  }
}
