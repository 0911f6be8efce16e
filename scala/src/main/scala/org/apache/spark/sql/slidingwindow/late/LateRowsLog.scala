package org.apache.spark.sql.slidingwindow.late

import java.util.concurrent.ConcurrentHashMap

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, LocalFileSystem, Path}

import org.apache.spark.internal.Logging
import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.{FileStreamSinkLog, FileSystemBasedCheckpointFileManager, SinkFileStatus}

/**
 * A late-rows table's files and the protocol that makes each late row appear once, after its
 * micro-batch commits (docs/state-format.md, "Late-rows tables"). It is Spark's own file sink
 * protocol, with the commit moved after the query's:
 *  - a task writes its late rows of micro-batch N as one Parquet file at the top of the table,
 *    named by N, the operator and the partition (a retried or speculative attempt writes the same
 *    rows under the same name), through a hidden temporary file renamed once complete; then a
 *    marker of that name in `_late_rows/N/`;
 *  - once micro-batch N has committed (Spark's commit log has N), the driver lists
 *    `_late_rows/N/` and adds the files it names as entry N - firstBatch of the table's
 *    `_spark_metadata` log (Spark's FileStreamSinkLog, whose entry is written atomically), then
 *    removes `_late_rows/N/`: the publication. Readers (`spark.read.table`, `parquet(path)`,
 *    `readStream`) see only the files of that log, as they do for a file sink's table;
 *  - a micro-batch that runs again (after a restart) first removes what an earlier attempt left
 *    in `_late_rows/N/`, and its data files at the top of the table (in no entry, so no reader
 *    saw them): the new attempt writes its own;
 *  - micro-batches are published in order, each once (an entry that exists is not written again):
 *    once the query has committed one, when Spark asks the operator for its progress
 *    ([[LateRowsOperator]]), and at the start of each micro-batch (every earlier one has
 *    committed), which publishes those a driver killed in between left.
 * One instance per table in the JVM: publications of one table are serialized.
 */
final class LateRowsLog private (session: SparkSession, val location: Path, val hadoopConf: Configuration) extends Logging {
  private val fs: FileSystem = location.getFileSystem(hadoopConf)
  // Creates `_spark_metadata` if it is missing: from then on, readers read the table by its log.
  private val published = new FileStreamSinkLog(FileStreamSinkLog.VERSION, LateRowsLog.writing(session, fs),
    new Path(location, LateRowsLog.metadataDir).toString, None)

  private var tidied = false
  // The log's next entry, read once: this instance is the table's only writer.
  private var next: Option[Long] = None

  /** The entries the log has: the next one's number. */
  def entries: Long = synchronized {
    if (next.isEmpty) next = Some(published.getLatestBatchId().map(_ + 1).getOrElse(0L))
    next.get
  }

  /** Publishes the micro-batches from the next unpublished one to `upTo` that `committed`, in order. */
  def publish(firstBatch: Long, upTo: Long, committed: Long => Boolean): Unit = synchronized {
    var batch = firstBatch + entries
    if (!tidied) {
      // A driver killed between an entry and the removal of its markers left them.
      if (batch > firstBatch) fs.delete(LateRowsLog.stagingOf(location, batch - 1), true)
      tidied = true
    }
    while (batch <= upTo && committed(batch)) {
      publishOne(firstBatch, batch)
      batch += 1
    }
  }

  private def publishOne(firstBatch: Long, batch: Long): Unit = {
    val dir = LateRowsLog.stagingOf(location, batch)
    val files = if (!fs.exists(dir)) Array.empty[SinkFileStatus] else {
      fs.listStatus(dir).map(_.getPath.getName).filterNot(LateRowsLog.hidden).sorted
        .map(name => SinkFileStatus(fs.getFileStatus(new Path(location, name))))
    }
    if (published.add(batch - firstBatch, files)) {
      logInfo(s"Late-rows table at $location: published micro-batch $batch (${files.length} files)")
    }
    next = Some(batch - firstBatch + 1)
    fs.delete(dir, true)
  }

  // Until the run's first micro-batch has removed the data files a killed run left.
  private var restarted = true

  /**
   * Removes what an earlier attempt of micro-batch `batch` left: it has not committed. In the
   * run's first micro-batch (the only one an earlier run can have attempted), its data files too:
   * a partition of a micro-batch run again may hold other rows than in the killed attempt (its
   * input split another way), so none is kept.
   */
  def clear(batch: Long): Unit = synchronized {
    fs.delete(LateRowsLog.stagingOf(location, batch), true)
    if (restarted) {
      val prefix = LateRowsLog.dataFilePrefix(batch)
      fs.listStatus(location).filter(_.getPath.getName.startsWith(prefix)).foreach(f => fs.delete(f.getPath, false))
      restarted = false
    }
  }
}

object LateRowsLog {
  /** Spark's file sink log, which readers of the table's location read its files from. */
  val metadataDir = "_spark_metadata"
  /** The markers of the files of micro-batches not yet published, and the table's writer. */
  val stagingDir = "_late_rows"

  /** The start of the name of every data file of micro-batch `batch` ([[LateRowsFile]]). */
  def dataFilePrefix(batch: Long): String = f"late-$batch%05d-"

  def stagingOf(location: Path, batch: Long): Path = new Path(new Path(location, stagingDir), batch.toString)

  /**
   * The session the log is written with: on the local file system, one whose log entries are
   * written through Hadoop's FileSystem (a file renamed into place, as Spark writes them where
   * its FileContext is not available), [[LocalFileSystemWithoutChmod]]. Where Hadoop has no
   * native library, each file its local file system creates costs a `chmod` process, and its
   * checksum another: an entry took 35 ms, on the stream thread between micro-batches, and 5
   * without checksums.
   */
  private def writing(session: SparkSession, fs: FileSystem): SparkSession = fs match {
    case _: LocalFileSystem =>
      val local = session.cloneSession()
      // Spark's (internal) setting of the class its metadata logs are written with.
      local.conf.set("spark.sql.streaming.checkpointFileManagerClass", classOf[FileSystemBasedCheckpointFileManager].getName)
      LocalFileSystemWithoutChmod.use(local.conf.set(_, _))
      local
    case _ => session
  }

  /** A temporary file (a write in progress) or a checksum, not a marker. */
  def hidden(name: String): Boolean = name.startsWith(".") || name.startsWith("_")

  private val logs = new ConcurrentHashMap[String, LateRowsLog]()

  /** The log of the table at `location`, opened when a query starts writing it ([[LateRowsTable]]). */
  def open(session: SparkSession, location: String): LateRowsLog = {
    val log = new LateRowsLog(session, new Path(location), session.sessionState.newHadoopConf())
    logs.put(location, log)
    log
  }

  /** The log of the table at `location`, opened when its query claimed it. */
  def apply(location: String): LateRowsLog =
    Option(logs.get(location)).getOrElse(throw new IllegalStateException(s"no query claimed the late-rows table at $location"))
}
