package org.apache.spark.sql.slidingwindow.late

import org.apache.hadoop.fs.Path
import org.json4s.{DefaultFormats, Formats, JInt, JObject, JString}
import org.json4s.jackson.JsonMethods.{compact, parse, render}

import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.planning.CheckpointFiles
import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession

/**
 * The late-rows table a query writes, as its checkpoint records it
 * (`<checkpoint>/_sliding_window_agg/late-rows`, docs/state-format.md): written by the first
 * micro-batch that runs with the setting, and checked when the query restarts. A query keeps its
 * table: a restart that names another, or none, is refused, since the table's log counts the
 * query's micro-batches from `firstBatch` on.
 *
 * @param table      the table's qualified name
 * @param location   its location: a table dropped and created again starts a new log
 * @param firstBatch the first micro-batch whose late rows the table's log has
 */
final case class LateRowsRecord(table: String, location: String, firstBatch: Long) {
  def json: String = compact(render(JObject("table" -> JString(table), "location" -> JString(location),
    "firstBatch" -> JInt(firstBatch))))
}

object LateRowsRecord {
  private implicit val formats: Formats = DefaultFormats

  private def file(checkpoint: String): Path = new Path(new Path(checkpoint, "_sliding_window_agg"), "late-rows")

  def read(session: SparkSession, checkpoint: String): Option[LateRowsRecord] = {
    val f = file(checkpoint)
    CheckpointFiles.read(f.getFileSystem(session.sessionState.newHadoopConf()), f).map { text =>
      val v = parse(text)
      LateRowsRecord((v \ "table").extract[String], (v \ "location").extract[String], (v \ "firstBatch").extract[Long])
    }
  }

  /**
   * The record of the query at `checkpoint`, checked against its setting, which names `table`
   * (None: unset): a table other than the recorded one, or none where one is recorded, is refused.
   */
  def checked(session: SparkSession, checkpoint: String, table: Option[String]): Option[LateRowsRecord] =
    (read(session, checkpoint), table) match {
      case (Some(r), None) => WindowErrors.lateRowsSettingChanged(r.table, "unset")
      case (Some(r), Some(t)) if r.table != t => WindowErrors.lateRowsSettingChanged(r.table, t)
      case (recorded, _) => recorded
    }

  /** Records `record` in the checkpoint, if it is not already. */
  def write(session: SparkSession, checkpoint: String, record: LateRowsRecord): Unit = {
    if (!read(session, checkpoint).contains(record)) {
      val f = file(checkpoint)
      val fs = f.getFileSystem(session.sessionState.newHadoopConf())
      fs.mkdirs(f.getParent)
      CheckpointFiles.write(fs, f, record.json)
    }
  }
}
