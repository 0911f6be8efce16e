package org.apache.spark.sql.slidingwindow.late

import java.util.{Date, UUID}
import java.util.concurrent.ConcurrentHashMap

import org.apache.hadoop.fs.{LocalFileSystem, Path}

import org.apache.hadoop.mapreduce.Job

import org.apache.spark.TaskContext
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.execution.datasources.OutputWriterFactory
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession
import org.apache.spark.sql.types.{DataType, StructType}
import org.apache.spark.util.SerializableConfiguration

/**
 * What the tasks of one micro-batch of an operator need to write its late rows
 * ([[LateRowsFile]]), prepared on the driver when the micro-batch runs ([[prepare]]).
 *
 * @param columns  the input columns written ([[LateRowsColumns.written]])
 * @param writer   the Parquet writer of the table's schema, the same for every micro-batch of a run
 * @param timeZone the session time zone, of the casts of columns the table holds as text
 */
final case class LateRowsOutput(
    target: LateRowsTarget,
    batchId: Long,
    schema: StructType,
    columns: Seq[LateRowsColumns.Written],
    writer: LateRowsOutput.Writer,
    timeZone: String)

object LateRowsOutput {
  /**
   * The Parquet writer of a run's late rows, with the session's Parquet settings, as Spark's own
   * file writes prepare it: its factory, and the Hadoop configuration its tasks write with
   * (broadcast once per run); on the local file system, [[LocalFileSystemWithoutChmod]].
   */
  final case class Writer(factory: OutputWriterFactory, conf: Broadcast[SerializableConfiguration], jobTrackerId: String)

  private val writers = new ConcurrentHashMap[(UUID, Long), Writer]()

  private def writer(session: SparkSession, runId: UUID, target: LateRowsTarget, schema: StructType): Writer =
    writers.computeIfAbsent((runId, target.operatorId), _ => {
      val job = Job.getInstance(session.sessionState.newHadoopConf())
      val factory = new ParquetFileFormat().prepareWrite(session, job, Map.empty, schema)
      val conf = job.getConfiguration
      if (new Path(target.location).getFileSystem(conf).isInstanceOf[LocalFileSystem]) LocalFileSystemWithoutChmod.use(conf.set(_, _))
      Writer(factory, session.sparkContext.broadcast(new SerializableConfiguration(conf)),
        new java.text.SimpleDateFormat("yyyyMMddHHmmss", java.util.Locale.US).format(new Date))
    })

  /**
   * The late rows of the task running now: written to `output`'s table if there is one.
   *
   * @param input           the types of the operator's input columns
   * @param lateMicros      the operator's watermark for late rows
   * @param sparkLateMicros Spark's own (lower where an idle close emitted past it)
   */
  def rowsOfTask(output: Option[LateRowsOutput], input: Seq[DataType], lateMicros: Long,
      sparkLateMicros: Long): LateRows = output match {
    case Some(out) =>
      val task = TaskContext.get()
      LateRows.written(out, task.partitionId(), task.attemptNumber(), input, lateMicros, sparkLateMicros)
    case None => LateRows.counted()
  }

  /**
   * Prepares micro-batch `batchId` of run `runId`: claims the table if this is the run's first
   * ([[LateRowsRuns]]), publishes the micro-batches before it (all committed: Spark runs a
   * micro-batch once the one before has), removes what an earlier attempt of this one left
   * ([[LateRowsLog]]), and gives its tasks the run's writer.
   */
  def prepare(session: SparkSession, runId: UUID, target: LateRowsTarget, batchId: Long,
      written: Seq[LateRowsColumns.Written]): LateRowsOutput = {
    val firstBatch = LateRowsRuns.claimed(session, runId).firstBatch
    val log = LateRowsLog(target.location)
    log.publish(firstBatch, batchId - 1, _ => true)
    log.clear(batchId)
    val schema = LateRowsColumns.schema(target.table, target.operator, written)
    LateRowsOutput(target, batchId, schema, written, writer(session, runId, target, schema),
      session.sessionState.conf.sessionLocalTimeZone)
  }
}
