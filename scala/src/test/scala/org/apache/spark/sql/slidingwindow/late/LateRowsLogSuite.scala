package org.apache.spark.sql.slidingwindow.late

import java.nio.file.Files

import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.slidingwindow.TestThrowables
import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.apache.spark.sql.slidingwindow.errors.{WindowAnalysisException, WindowErrors}
import org.apache.spark.sql.slidingwindow.harness.HarnessSpark
import org.apache.spark.sql.slidingwindow.shims.ClassicSession
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.FileStreamSinkLog
import org.apache.spark.sql.types.{ArrayType, CalendarIntervalType, DateType, DayTimeIntervalType, LongType, MapType, StringType, StructField, StructType, TimestampType}

/**
 * The publication protocol of a late-rows table (docs/state-format.md, "Late-rows tables") on
 * its files, without a query: data files and the markers tasks leave, published in order once
 * their micro-batch has committed, each once; what a killed driver left; and the table's columns.
 */
class LateRowsLogSuite extends AnyFunSuite {
  private def session: ClassicSession.SparkSession = {
    HarnessSpark.start()
    SparkSession.active.asInstanceOf[ClassicSession.SparkSession]
  }

  private def table(): Path = new Path(Files.createTempDirectory("late-rows-log").toUri.toString, "t")

  /** What a task of micro-batch `batch` leaves once its file is complete: the file and its marker. */
  private def taskWrote(location: Path, batch: Long, partition: Int): String = {
    val name = f"late-$batch%05d-1000-$partition%05d.parquet"
    val fs = location.getFileSystem(session.sessionState.newHadoopConf())
    fs.create(new Path(location, name), true).close()
    fs.create(new Path(LateRowsLog.stagingOf(location, batch), name), true).close()
    name
  }

  /** The names of the data files of each entry of the table's log. */
  private def entries(location: Path): Map[Long, Seq[String]] = {
    val log = new FileStreamSinkLog(FileStreamSinkLog.VERSION, session, new Path(location, "_spark_metadata").toString, None)
    log.getLatestBatchId().toSeq.flatMap(latest => (0L to latest).map { e =>
      e -> log.get(e).get.map(s => new Path(s.path).getName).toSeq.sorted
    }).toMap
  }

  test("committed micro-batches are published in order each once") {
    val location = table()
    val log = LateRowsLog.open(session, location.toString)
    val a = taskWrote(location, 3, 0)
    val b = taskWrote(location, 3, 1)
    val c = taskWrote(location, 5, 0)
    // Micro-batches 3 and 4 committed (4 dropped no row), 5 not yet.
    log.publish(firstBatch = 3, upTo = 5, committed = _ <= 4)
    assertResult(Map(0L -> Seq(a, b), 1L -> Seq()))(entries(location))
    val fs = location.getFileSystem(session.sessionState.newHadoopConf())
    assert(!fs.exists(LateRowsLog.stagingOf(location, 3)))
    assert(fs.exists(LateRowsLog.stagingOf(location, 5)))
    // Again, and from another instance (a restart): nothing twice; then 5 once it commits.
    log.publish(3, 4, _ => true)
    LateRowsLog.open(session, location.toString).publish(3, 5, _ => true)
    assertResult(Map(0L -> Seq(a, b), 1L -> Seq(), 2L -> Seq(c)))(entries(location))
  }

  test("a micro-batch run again starts from nothing") {
    val location = table()
    val log = LateRowsLog.open(session, location.toString)
    val killed = taskWrote(location, 0, 0) // an attempt of micro-batch 0 that did not commit
    log.clear(0)
    // Its data file too: the partition may hold other rows in the new attempt.
    assert(!location.getFileSystem(session.sessionState.newHadoopConf()).exists(new Path(location, killed)))
    val again = taskWrote(location, 0, 1)
    log.publish(0, 0, _ => true)
    assertResult(Map(0L -> Seq(again)))(entries(location))
  }

  test("markers a killed driver left after their entry are removed") {
    val location = table()
    val name = taskWrote(location, 7, 0)
    LateRowsLog.open(session, location.toString).publish(7, 7, _ => true)
    // Killed between the entry and the markers' removal: they are back.
    val fs = location.getFileSystem(session.sessionState.newHadoopConf())
    fs.create(new Path(LateRowsLog.stagingOf(location, 7), name), true).close()
    LateRowsLog.open(session, location.toString).publish(7, 8, _ => false)
    assert(!fs.exists(LateRowsLog.stagingOf(location, 7)))
    assertResult(Map(0L -> Seq(name)))(entries(location))
  }

  test("the columns are the inputs but Spark's own, then why") {
    val k = AttributeReference("k", StringType)()
    val v = AttributeReference("v", LongType)()
    val w0 = AttributeReference("_w0", LongType)()
    val w1 = AttributeReference("_w1", LongType)()
    // Trailing windows ordered by _w0 = unix_micros(ts), without ts: the time is kept as ts.
    val written = LateRowsColumns.written(Seq(k, w1, v, w0), Some(w0 -> "ts"))
    assertResult(Seq(0, 2, 3))(written.map(_.ordinal))
    val schema = LateRowsColumns.schema("t", "trailing_window", written)
    assertResult(Seq("k", "v", "ts", "late_batch_id", "late_watermark", "late_operator", "late_operator_id",
      "late_reason"))(schema.fieldNames.toSeq)
    assertResult(TimestampType)(schema("ts").dataType)
    // With ts in the input, _w0 is Spark's own only.
    val ts = AttributeReference("TS", TimestampType)()
    assertResult(Seq(0, 1))(LateRowsColumns.written(Seq(k, ts, w0), Some(w0 -> "ts")).map(_.ordinal))
    val clash = AttributeReference("Late_Reason", StringType)()
    val e = intercept[WindowAnalysisException](
      LateRowsColumns.schema("t", "sliding_window", LateRowsColumns.written(Seq(k, clash))))
    assertResult("WINDOW_LATE_ROWS_TABLE.COLUMN_CLASH")(TestThrowables.condition(e))
    assert(e.getMessage.contains("`late_reason` is named twice"), e.getMessage)
    assert(e.getMessage.contains("Rename those columns (with an alias) before the window."), e.getMessage)
    // The columns of the query's withWatermark, where a split writes them: at their ordinals in its input.
    val id = AttributeReference("id", LongType)()
    assertResult(Seq(2, 0))(LateRowsColumns.whole(Seq(k, v, id), Seq(id, k)).map(_.ordinal))
    val beforeWatermark = intercept[WindowAnalysisException](LateRowsColumns.schema("t",
      "sliding_window", LateRowsColumns.whole(Seq(k, clash), Seq(k, clash)), whole = true))
    assert(beforeWatermark.getMessage.contains("(with an alias) before withWatermark."), beforeWatermark.getMessage)
  }

  test("each column type is held as it is or as its text") {
    // The rule of LateRowsTypes: Parquet's types kept, a calendar interval as its text, anywhere
    // in the tree (Spark casts every type to STRING but those whose cast it refuses, such as
    // Spark 4.3's GEOMETRY, which Parquet holds: a part neither holds is refused, naming it).
    val nested = ArrayType(StructType(Seq(StructField("c", CalendarIntervalType), StructField("d", DateType))))
    assertResult(Right(ArrayType(StructType(Seq(StructField("c", StringType), StructField("d", DateType))))))(
      LateRowsTypes.stored(nested))
    val intervals = MapType(StringType, DayTimeIntervalType())
    assertResult(Right(intervals))(LateRowsTypes.stored(intervals))
    val i = AttributeReference("iv", MapType(StringType, CalendarIntervalType))()
    val schema = LateRowsColumns.schema("t", "sliding_window", LateRowsColumns.written(Seq(i)))
    assertResult(MapType(StringType, StringType))(schema("iv").dataType)
    val e = intercept[WindowAnalysisException](
      WindowErrors.lateRowsUnsupportedType("t", "sliding_window", "g", "ARRAY<GEOMETRY(0)>", "GEOMETRY(0)"))
    assertResult("WINDOW_LATE_ROWS_TABLE.UNSUPPORTED_TYPE")(TestThrowables.condition(e))
    assert(e.getMessage.contains("the column g of sliding_window's input is ARRAY<GEOMETRY(0)>, whose GEOMETRY(0) "),
      e.getMessage)
  }
}
