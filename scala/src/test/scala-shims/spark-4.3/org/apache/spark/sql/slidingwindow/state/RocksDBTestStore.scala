package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.slidingwindow.state.sliding.{RecordLimits, WindowState, WindowStateCodec, WindowStateLayout}

import java.nio.file.Files

import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state.{RocksDBStateStoreProvider, StateStore, StateStoreConf, StateStoreId}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.execution.WindowStateStoreWriter
import org.apache.spark.sql.types.{DataType, LongType, StructField, StructType}

/**
 * A real RocksDB store of one partition for the suites of state format 2, opened as a query
 * opens it under `spark.sql.slidingWindow.state.verifyRowCount` (the provider counts its rows,
 * and each commit checks the operator's counts against it), micro-batch after micro-batch.
 */
private[state] final class RocksDBTestStore(layout: WindowStateLayout, limits: RecordLimits, cacheBytes: Long) {
  private val dir = Files.createTempDirectory("swa-state-store").toFile
  private val provider = new RocksDBStateStoreProvider
  private val hadoopConf = new Configuration
  hadoopConf.set("sql.streaming.runId", java.util.UUID.randomUUID.toString)
  provider.init(StateStoreId(dir.getAbsolutePath, 0, 0), layout.keySchema, layout.valueSchema,
    layout.keyEncoding(ordered = true), true,
    new StateStoreConf(WindowStateStoreWriter.storeSettings(new SQLConf, providerCountsRows = true)), hadoopConf)

  /**
   * One micro-batch from `version` under the eviction `watermark`: `f` on its state (which checks
   * what it counts of its time index at the commit), then a commit unless `fail`. When `f` or the
   * commit throws, the store is aborted, as a task's failure aborts it: it gives its RocksDB
   * instance back, which the next micro-batch would otherwise wait for.
   */
  def batch[T](version: Long, fail: Boolean = false, watermark: Option[Long] = None)(
      f: WindowState => T): (T, StateMetrics) = {
    val store: StateStore = provider.getStore(version)
    val state = WindowState(store, layout, StateArrangement(timeIndex = true, orderedRows = true), watermark, limits,
      cacheBytes, verify = true)
    val result = try {
      val r = f(state)
      if (fail) store.abort() else state.commit()
      r
    } catch { case e: Throwable => if (!store.hasCommitted) store.abort(); throw e }
    (result, state.metrics)
  }

  def close(): Unit = {
    provider.close()
    org.apache.commons.io.FileUtils.deleteQuietly(dir)
  }
}

private[state] object RocksDBTestStore {
  /** The suites' state: groups of one long key, one count as the aggregation buffer. */
  val layout: WindowStateLayout = WindowStateLayout(2, Seq(AttributeReference("k", LongType, nullable = false)()),
    StructType(Seq(StructField("n", LongType, nullable = true))))
  val codec: WindowStateCodec = layout.codec()
  val limits: RecordLimits =
    RecordLimits(inlineRows = 512, resweepRows = 16, chunkRows = 16, hotRows = 2, chunked = true)
  private val groupRow = UnsafeProjection.create(Array[DataType](LongType))

  /** The group of key `k`. */
  def group(k: Long): UnsafeRow = groupRow(InternalRow(k)).copy()
}
