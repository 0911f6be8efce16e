package org.apache.spark.sql.slidingwindow.harness

import java.nio.file.Files

import org.apache.spark.sql.execution.streaming.state.{StateStore, StateStoreProvider}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.state.{StateArrangement, StateStoreSchema}

/**
 * A real state store of one partition of one operator, in a checkpoint of its own (a temporary
 * folder), as an executor opens it: a [[StateStoreProvider]] of `kind`, micro-batch after
 * micro-batch. [[microBatch]] opens the store at the last committed version and hands it to the
 * micro-batch's work, which commits it (through the operator's state) or not: a store left
 * uncommitted is aborted, as a failed task's is. The provider is opened with the store settings
 * of `session` (RocksDB's changelog checkpointing, say). [[restart]] is a query's restart: the provider is
 * closed and a new one opened on the same checkpoint, which resumes from its last commit.
 */
final class StoreHarness(kind: ProviderKind, schema: StateStoreSchema, arrangement: StateArrangement, session: SQLConf) {
  private val dir = Files.createTempDirectory("swa-harness").toFile
  private var provider: StateStoreProvider = open(session)
  private var committed = 0L
  private var rows = 0L

  /** The last version committed: the number of micro-batches that committed. */
  def version: Long = committed

  /** The provider's count of the state's rows at the last commit (every column family's). */
  def rowCount: Long = rows

  private def open(session: SQLConf): StateStoreProvider = {
    val hadoopConf = HarnessFileSystem.hadoopConf()
    hadoopConf.set("sql.streaming.runId", java.util.UUID.randomUUID.toString) // StreamExecution.RUN_ID_KEY
    val p = kind.newProvider()
    ProviderInit.init(p, dir.getAbsolutePath, schema, arrangement.orderedRows, arrangement.timeIndex, session, hadoopConf)
    p
  }

  /**
   * `work` on the store at the last committed version, in a task of its own ([[HarnessTask]]).
   * If `work` committed the store, its version and row count are the harness's; if not (or it
   * threw), the store is aborted.
   */
  def microBatch[T](work: StateStore => T): T = HarnessTask.run {
    val store = provider.getStore(committed)
    try {
      val result = work(store)
      if (store.hasCommitted) {
        committed += 1
        rows = store.metrics.numKeys
      } else store.abort()
      result
    } catch {
      case e: Throwable =>
        if (!store.hasCommitted) store.abort()
        throw e
    }
  }

  /** Closes the provider and opens a new one on the checkpoint, with the store settings of `session`. */
  def restart(session: SQLConf): Unit = {
    provider.close()
    provider = open(session)
  }

  def close(): Unit = {
    provider.close()
    org.apache.commons.io.FileUtils.deleteQuietly(dir)
  }
}
