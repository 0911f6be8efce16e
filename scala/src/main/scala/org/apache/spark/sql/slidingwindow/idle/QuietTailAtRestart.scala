package org.apache.spark.sql.slidingwindow.idle

import java.util.Collections
import java.util.WeakHashMap

import org.apache.hadoop.fs.Path

import org.apache.spark.internal.Logging
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.slidingwindow.planning.CheckpointFiles
import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession
import org.apache.spark.sql.streaming.{StreamingQueryListener, Trigger}

/**
 * Makes a micro-batch due when a query whose windows close by the idle timeout restarts after its
 * last micro-batch committed (docs/streaming.md, "The idle timeout"). Spark runs a micro-batch
 * without new input only when the plan of the micro-batch before asks for one
 * (`shouldRunAnotherBatch`, [[QuietClose]]): a restarted run has no such plan until a micro-batch
 * ran, so without new rows the windows waiting for the idle close would stay open.
 *
 * When such a query starts (the listener's `onQueryStarted` runs on the query's thread, before
 * it reads its logs), the offset log gets the micro-batch the run before would have planned next:
 * the offsets and metadata of its last one with the watermark its commit gave the next one,
 * logged under the next id, which Spark runs at
 * the restart as a micro-batch logged and not committed, reading no rows. It has the last
 * micro-batch's timestamp, so its [[IdleClock]] moves nothing; once it ran, its plan asks for the
 * micro-batches the idle clock makes due, as in a run that never stopped. Rows that came while the
 * query was down are read by the micro-batch after it, before any idle close, as Spark would.
 *
 * Only for a processing-time trigger, with the idle timeout set, where an operator of the
 * extension logged an idle clock for the last micro-batch (its `state/<operator>/_sliding_window_agg/idle`).
 */
object QuietTailAtRestart extends Logging {
  private val sessions = Collections.synchronizedMap(new WeakHashMap[SparkSession, java.lang.Boolean]())

  /** Listens to the queries `session` starts, once per session, from its first streaming plan. */
  def register(session: SparkSession, plan: LogicalPlan): Unit =
    if (plan.isStreaming && sessions.putIfAbsent(session, java.lang.Boolean.TRUE) == null) {
      session.streams.addListener(new Listener(session))
    }

  private val processingTime = Trigger.ProcessingTime(0L).getClass
  private val watermarkField = "\"batchWatermarkMs\""

  private final class Listener(session: SparkSession) extends StreamingQueryListener {
    override def onQueryStarted(event: StreamingQueryListener.QueryStartedEvent): Unit =
      Option(session.sharedState.activeStreamingQueries.get(event.id)).foreach { query =>
        val timeout = IdleSettings(query.sparkSession.sessionState.conf).timeoutMs
        if (timeout.isDefined && processingTime.isInstance(query.trigger)) {
          for {
            (batch, _) <- query.offsetLog.getLatest()
            (committed, commit) <- query.commitLog.getLatest()
            if committed == batch && hasIdleClock(query.resolvedCheckpointRoot, batch)
          } {
            logNextBatch(query.resolvedCheckpointRoot, batch, commit.nextBatchWatermarkMs)
            logInfo(s"Query ${event.id}: micro-batch ${batch + 1} logged without new offsets at its restart, " +
              "for the windows waiting for the idle close")
          }
        }
      }

    /**
     * Logs micro-batch `batch + 1` in the offset log: the entry of `batch`, with the watermark its
     * commit gave the next micro-batch, as Spark logs a micro-batch it plans after it.
     */
    private def logNextBatch(checkpoint: String, batch: Long, watermarkMs: Long): Unit = {
      val log = new Path(checkpoint, "offsets")
      val fs = log.getFileSystem(session.sessionState.newHadoopConf())
      val last = new Path(log, batch.toString)
      val text = CheckpointFiles.read(fs, last).getOrElse(throw new java.io.FileNotFoundException(last.toString))
      CheckpointFiles.write(fs, new Path(log, (batch + 1).toString),
        text.replaceFirst(watermarkField + ":-?[0-9]+", watermarkField + ":" + watermarkMs))
    }

    private def hasIdleClock(checkpoint: String, batch: Long): Boolean = {
      val state = new Path(checkpoint, "state")
      val fs = state.getFileSystem(session.sessionState.newHadoopConf())
      fs.exists(state) && fs.listStatus(state).exists { operator =>
        operator.isDirectory && fs.exists(new Path(new Path(operator.getPath, IdleClock.logFolder), batch.toString))
      }
    }

    override def onQueryProgress(event: StreamingQueryListener.QueryProgressEvent): Unit = ()
    override def onQueryTerminated(event: StreamingQueryListener.QueryTerminatedEvent): Unit = ()
  }
}
