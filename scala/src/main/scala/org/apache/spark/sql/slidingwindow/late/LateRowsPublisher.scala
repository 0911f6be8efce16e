package org.apache.spark.sql.slidingwindow.late

import java.util.{Collections, UUID, WeakHashMap}
import java.util.concurrent.ConcurrentHashMap

import org.apache.hadoop.fs.Path

import org.apache.spark.internal.Logging
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.StreamExecution
import org.apache.spark.sql.streaming.StreamingQueryListener

/**
 * Publishes the late rows of a micro-batch as soon as it has committed ([[LateRowsLog]]): when the
 * query reports the micro-batch's progress (after Spark's commit log has it) and when the query
 * stops. A driver killed before that leaves them to the next run, which publishes them when its
 * first micro-batch starts. One listener per session that runs such queries.
 */
object LateRowsPublisher extends Logging {
  private final case class Watched(log: LateRowsLog, firstBatch: Long, checkpoint: String) {
    private val commits = new Path(checkpoint, "commits")
    private val fs = commits.getFileSystem(log.hadoopConf)

    def publish(upTo: Long): Unit =
      try log.publish(firstBatch, upTo, batch => fs.exists(new Path(commits, batch.toString)))
      catch {
        case e: Exception => logWarning(s"Late-rows table at ${log.location}: publication failed " +
          "(the next micro-batch, or the next run, publishes)", e)
      }
  }

  private val runs = new ConcurrentHashMap[UUID, Watched]()
  private val sessions = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap[AnyRef, java.lang.Boolean]()))

  /** Publishes the micro-batches `query`'s run commits with `log`. */
  def watch(query: StreamExecution, log: LateRowsLog, firstBatch: Long): Unit = {
    runs.put(query.runId, Watched(log, firstBatch, query.resolvedCheckpointRoot))
    val session = query.sparkSession
    if (sessions.add(session)) session.streams.addListener(new Listener)
  }

  private final class Listener extends StreamingQueryListener {
    override def onQueryStarted(event: StreamingQueryListener.QueryStartedEvent): Unit = ()

    override def onQueryProgress(event: StreamingQueryListener.QueryProgressEvent): Unit =
      Option(runs.get(event.progress.runId)).foreach(_.publish(event.progress.batchId))

    override def onQueryTerminated(event: StreamingQueryListener.QueryTerminatedEvent): Unit =
      Option(runs.remove(event.runId)).foreach(_.publish(Long.MaxValue))
  }
}
