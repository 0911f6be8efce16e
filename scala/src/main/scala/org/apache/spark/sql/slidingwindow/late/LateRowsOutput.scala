package org.apache.spark.sql.slidingwindow.late

import java.util.{Date, UUID}

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
 * ([[LateRowsFile]]), prepared on the driver when the micro-batch runs ([[prepare]]): the
 * Parquet writer of the table's schema, with the session's Parquet settings, as Spark's own
 * file writes prepare it.
 *
 * @param columns the input columns written, as ordinals of the operator's input
 */
final case class LateRowsOutput(
    target: LateRowsTarget,
    batchId: Long,
    schema: StructType,
    columns: Seq[Int],
    factory: OutputWriterFactory,
    conf: Broadcast[SerializableConfiguration],
    jobTrackerId: String)

object LateRowsOutput {
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
   * Prepares micro-batch `batchId`: publishes those before it (all committed: Spark runs a
   * micro-batch once the one before has), removes what an earlier attempt of this one left
   * ([[LateRowsLog]]), and prepares its writer.
   */
  def prepare(session: SparkSession, target: LateRowsTarget, batchId: Long,
      written: Seq[LateRowsColumns.Written]): LateRowsOutput = {
    val log = LateRowsLog(session, target.location)
    log.publish(target.firstBatch, batchId - 1, _ => true)
    log.clear(batchId)
    val schema = LateRowsColumns.schema(target.table, target.operator, written)
    val job = Job.getInstance(session.sessionState.newHadoopConf())
    val factory = new ParquetFileFormat().prepareWrite(session, job, Map.empty, schema)
    val conf = session.sparkContext.broadcast(new SerializableConfiguration(job.getConfiguration))
    LateRowsOutput(target, batchId, schema, written.map(_.ordinal), factory, conf,
      new java.text.SimpleDateFormat("yyyyMMddHHmmss", java.util.Locale.US).format(new Date) +
        UUID.randomUUID().toString.take(4))
  }
}
