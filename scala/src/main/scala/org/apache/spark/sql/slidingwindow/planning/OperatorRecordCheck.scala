package org.apache.spark.sql.slidingwindow.planning

import java.util.UUID
import java.util.concurrent.ConcurrentHashMap

import org.apache.hadoop.fs.Path

import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.IncrementalExecution
import org.apache.spark.sql.slidingwindow.state.{StateArrangement, WindowOperatorRecord}
import org.apache.spark.sql.slidingwindow.state.trailing.TrailingRows
import org.apache.spark.sql.slidingwindow.state.sliding.StateFormatVersion

/**
 * Keeps a streaming windowed aggregation on the state it started with. When a micro-batch is
 * planned, before it runs, the operator's [[WindowOperatorRecord]] in the checkpoint
 * (`<checkpoint>/state/<operator id>/_sliding_window_agg/operator.json`) gives the state format
 * version to run with, and the restarted query is compared with it:
 *
 *  - batch 0 (a new query, or one whose first micro-batch never committed): the record is
 *    written for the state format version of new queries, the one `query` has
 *    ([[StateFormatVersion.forNewQuery]]);
 *  - a restart: a record of an unknown version, or a query that changed what the state depends
 *    on (or switched from append to update mode), fails with a clear error before any
 *    micro-batch runs; a switch from update to append mode is recorded, and so is what the
 *    aggregates compute where the record does not say it yet;
 *  - a restart of a checkpoint that holds state but no record (written by release 0.1.0): its
 *    state is version 1 ([[StateFormatVersion.unrecorded]]); the record is written then, so
 *    that later restarts are checked too;
 *  - the state keeps its arrangement ([[StateArrangement]]) across restarts, on any Spark: a
 *    Spark that lacks what it needs (a checkpoint moved to an older Spark) fails clearly.
 *
 * The record is read once per run of a query (the first micro-batch it plans), on the driver.
 */
object OperatorRecordCheck {
  /** What a run's check found: the version, arrangement and (trailing windows) rows of the state. */
  private final case class Checked(version: Int, arrangement: StateArrangement, rows: Option[TrailingRows])

  private val runs = new ConcurrentHashMap[(UUID, Long), Checked]()

  /**
   * The state format version and state arrangement operator `operatorId` runs with; fails on a
   * changed query, or on state this Spark cannot read.
   */
  def stateFormat(
      session: SparkSession,
      execution: IncrementalExecution,
      operatorId: Long,
      query: WindowOperatorRecord,
      supported: Seq[Int] = StateFormatVersion.supported): (Int, StateArrangement) = {
    val checked =
      runs.computeIfAbsent((execution.runId, operatorId), _ => check(session, execution, operatorId, query, supported))
    (checked.version, checked.arrangement)
  }

  /**
   * The rows the state of trailing windows operator `operatorId` keeps, as its record says
   * ([[TrailingRows]]), once [[stateFormat]] checked the query; None where the record does not say
   * (written before they were recorded: the query's are the state's).
   */
  def recordedRows(execution: IncrementalExecution, operatorId: Long): Option[TrailingRows] =
    Option(runs.get((execution.runId, operatorId))).flatMap(_.rows)

  private def check(
      session: SparkSession,
      execution: IncrementalExecution,
      operatorId: Long,
      query: WindowOperatorRecord,
      supported: Seq[Int]): Checked = {
    val conf = session.sessionState.conf
    val operatorDir = new Path(execution.checkpointLocation, operatorId.toString)
    val file = new Path(operatorDir, "_sliding_window_agg/operator.json")
    val fs = file.getFileSystem(session.sessionState.newHadoopConf())
    val checkpoint = new Path(execution.checkpointLocation).getParent.toString

    def write(record: WindowOperatorRecord): Checked = {
      CheckpointFiles.write(fs, file, record.json)
      Checked(record.stateFormatVersion, record.arrangement.get, record.rows)
    }
    // A query that says its arrangement (trailing windows have one only) keeps it.
    def newQuery(): Checked =
      write(if (query.arrangement.isDefined) query else query.withArrangement(StateArrangement.forNewQuery(conf)))

    if (execution.currentBatchId == 0) {
      newQuery()
    } else if (fs.exists(file)) {
      val recorded = WindowOperatorRecord.fromJson(CheckpointFiles.read(fs, file).get)
      if (!supported.contains(recorded.stateFormatVersion)) {
        WindowErrors.stateFormatUnsupported(query.function, recorded.stateFormatVersion,
          supported, checkpoint)
      }
      recorded.incompatibility(query, conf.caseSensitiveAnalysis).foreach { case (what, before, after) =>
        WindowErrors.incompatibleRestart(query.function, what, before, after, checkpoint)
      }
      val arrangement = recorded.arrangement.getOrElse(StateArrangement.unrecorded(conf))
      arrangement.unsupportedHere.foreach { needs =>
        WindowErrors.stateStorageUnsupported(query.function, arrangement.toString, needs, checkpoint)
      }
      if (recorded.outputMode != query.outputMode || recorded.arrangement.isEmpty || !recorded.current) {
        write(recorded.ranIn(query).withArrangement(arrangement))
      } else {
        Checked(recorded.stateFormatVersion, arrangement, recorded.rows)
      }
    } else if (fs.exists(operatorDir)) {
      val arrangement = StateArrangement.unrecorded(conf)
      arrangement.unsupportedHere.foreach { needs =>
        WindowErrors.stateStorageUnsupported(query.function, arrangement.toString, needs, checkpoint)
      }
      // Nor does it say in which order its rows are kept, if it keeps rows.
      write(query.withVersion(StateFormatVersion.unrecorded).withArrangement(arrangement).copy(rows = None))
    } else {
      newQuery()
    }
  }
}
