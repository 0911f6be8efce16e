package org.apache.spark.sql.slidingwindow.planning

import java.util.concurrent.ConcurrentHashMap

import org.apache.hadoop.fs.{FileSystem, Path}

import org.apache.spark.internal.Logging
import org.apache.spark.sql.slidingwindow.idle.{IdleClock, IdleSettings}
import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.IncrementalExecution

/**
 * The [[IdleClock]] of each micro-batch of an operator, kept in its checkpoint beside its record
 * (`state/<operator>/_sliding_window_agg/idle/<batch id>`, docs/state-format.md, "The idle
 * clock"): written when the micro-batch is planned the first time, and read back when it is
 * planned again after a restart, so that it runs with the same watermarks. The clocks of the
 * last three micro-batches are kept.
 *
 * A query keeps its clock once it has one: an operator whose checkpoint has a clock goes on
 * keeping it when a restart turns the settings off, so that its watermarks never go back below
 * those an idle close used (windows already emitted would be emitted again).
 */
object IdleClockLog extends Logging {
  private val kept = 3
  // Per run of an operator: whether it keeps a clock (its settings, or a clock in its checkpoint).
  private val runs = new ConcurrentHashMap[(java.util.UUID, Long), java.lang.Boolean]()

  private def dir(execution: IncrementalExecution, operatorId: Long): Path =
    new Path(new Path(execution.checkpointLocation, operatorId.toString), IdleClock.logFolder)

  /**
   * The clock of the micro-batch `execution` plans: the one logged for it, or `next(clock of the
   * micro-batch before)`, logged. None where the operator keeps no clock.
   */
  def clock(session: SparkSession, execution: IncrementalExecution, operatorId: Long, settings: IdleSettings)(
      next: Option[IdleClock] => IdleClock): Option[IdleClock] = {
    val log = dir(execution, operatorId)
    // Only where it is needed: a query without a clock plans every micro-batch without it.
    lazy val fs = log.getFileSystem(session.sessionState.newHadoopConf())
    val keeps = runs.computeIfAbsent((execution.runId, operatorId),
      _ => java.lang.Boolean.valueOf(settings.enabled || fs.exists(log)))
    if (!keeps) None
    else {
      val batch = execution.currentBatchId
      val file = new Path(log, batch.toString)
      // A clock logged for this micro-batch, of its timestamp (a checkpoint whose offset log was
      // rolled back by hand may hold one of another micro-batch of that id).
      val timestamp = execution.offsetSeqMetadata.batchTimestampMs
      Some(read(fs, file).filter(_.batchTimestampMs == timestamp).getOrElse {
        val clock = next(read(fs, new Path(log, (batch - 1).toString)))
        CheckpointFiles.write(fs, file, clock.json)
        val old = new Path(log, (batch - kept).toString)
        if (batch >= kept && fs.exists(old)) fs.delete(old, false)
        if (clock.movedOn) {
          logInfo(s"Stateful operator $operatorId, micro-batch $batch: the input has been quiet since " +
            s"${clock.lastInputMs} ms; windows close (rows are due) under the watermark ${clock.evictionMs} ms " +
            s"(Spark's: ${clock.sparkEvictionMs} ms)")
        }
        clock
      })
    }
  }

  private def read(fs: FileSystem, file: Path): Option[IdleClock] =
    CheckpointFiles.read(fs, file).map(IdleClock.fromJson)
}
