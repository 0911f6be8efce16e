package org.apache.spark.sql.slidingwindow.late

import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.{TaskAttemptID, TaskID, TaskType}
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.OutputWriter

/**
 * The late rows one task of micro-batch `batchId` writes to the query's late-rows table: one
 * Parquet file, opened at the first row, written through a hidden temporary file and renamed at
 * [[commit]] to the name of its micro-batch, operator and partition, then marked in
 * `_late_rows/<batch id>/` ([[LateRowsLog]]). A task that fails removes its temporary file.
 */
final class LateRowsFile(output: LateRowsOutput, partition: Int, attempt: Int) {
  private val conf = output.writer.conf.value.value
  private val location = new Path(output.target.location)
  private val fs = location.getFileSystem(conf)
  private var writer: OutputWriter = _
  private var temporary: Path = _
  private var name: String = _
  var written = 0L

  def write(row: InternalRow): Unit = {
    if (writer == null) open()
    writer.write(row)
    written += 1
  }

  private def open(): Unit = {
    val context = new TaskAttemptContextImpl(conf, new TaskAttemptID(
      new TaskID(output.writer.jobTrackerId, output.target.operatorId.toInt, TaskType.MAP, partition), attempt))
    name = LateRowsLog.dataFilePrefix(output.batchId) + f"${output.target.operatorId}%d-$partition%05d" +
      output.writer.factory.getFileExtension(context)
    // Named by the task attempt's id, unique in the application (its number restarts with each stage attempt).
    temporary = new Path(LateRowsLog.stagingOf(location, output.batchId),
      s".$name.${Option(TaskContext.get()).map(_.taskAttemptId()).getOrElse(attempt.toLong)}.tmp")
    writer = output.writer.factory.newInstance(temporary.toString, output.schema, context)
    // A task that fails, or ends without reading its input to the end, leaves no file behind.
    Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => abort()))
  }

  /**
   * Completes the file, if rows were written: renamed to its name at the top of the table, unless
   * an attempt before in this run left it there, with the same rows (perhaps in another order: a
   * file that may be published already is never replaced), and marked for its micro-batch.
   */
  def commit(): Unit = if (writer != null) {
    writer.close()
    writer = null
    val target = new Path(location, name)
    if (fs.exists(target) || !fs.rename(temporary, target)) {
      if (!fs.exists(target)) throw new java.io.IOException(s"Could not rename $temporary to $target")
      fs.delete(temporary, false)
    }
    fs.create(new Path(LateRowsLog.stagingOf(location, output.batchId), name), true).close()
  }

  private def abort(): Unit = if (writer != null) {
    try writer.close() catch { case _: Exception => }
    writer = null
    fs.delete(temporary, false)
  }
}
