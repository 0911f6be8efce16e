package org.apache.spark.sql.slidingwindow.late

import java.util.UUID
import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path

import org.apache.spark.internal.Logging
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.StreamExecution

/**
 * Publishes the late rows of a micro-batch as soon as it has committed ([[LateRowsLog]]): when
 * Spark asks the operator for its progress ([[LateRowsOperator]]), which the stream thread does
 * once the commit log has the micro-batch, before the next micro-batch and before the query
 * stops. A driver killed in between leaves them to the next micro-batch, or the next run.
 */
object LateRowsPublisher extends Logging {
  private final case class Watched(log: LateRowsLog, firstBatch: Long, checkpoint: String) {
    private val commits = new Path(checkpoint, "commits")
    private val fs = commits.getFileSystem(log.hadoopConf)

    def publish(upTo: Long): Unit =
      try log.publish(firstBatch, upTo, batch => fs.exists(new Path(commits, batch.toString)))
      catch {
        case NonFatal(e) => logWarning(s"Late-rows table at ${log.location}: publication failed " +
          "(the next micro-batch, or the next run, publishes)", e)
      }
  }

  // By run of a query, kept for the JVM's life: a run's log, and the session it writes with.
  private val runs = new ConcurrentHashMap[UUID, Watched]()

  /** Publishes the micro-batches `query`'s run commits with `log`. */
  def watch(query: StreamExecution, log: LateRowsLog, firstBatch: Long): Unit =
    runs.put(query.runId, Watched(log, firstBatch, query.resolvedCheckpointRoot))

  /** Micro-batch `batchId` of run `runId` may have committed: publishes what has. */
  def ran(runId: UUID, batchId: Long): Unit = Option(runs.get(runId)).foreach(_.publish(batchId))
}
