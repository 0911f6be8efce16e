package org.apache.spark.sql.slidingwindow.late

import java.util.UUID
import java.util.concurrent.ConcurrentHashMap

import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.StreamExecution

/**
 * The late-rows table of each run of a query, from its planning to its first micro-batch:
 * planned (every operator's input checked against the table, [[LateRowsTable.ensure]]) while
 * the first micro-batch is planned, then claimed and recorded in the checkpoint when it runs
 * ([[claimed]]), once every operator of the query has been checked: a run that stops on an
 * operator the table does not fit records nothing, and the next may name another table, or none.
 */
object LateRowsRuns {
  /**
   * A run as planned: the table the setting names, the checkpoint, what the checkpoint recorded
   * before, and the micro-batch planned first (where a new record's log starts).
   */
  private final case class Planned(table: TableIdentifier, location: String, checkpoint: String,
      recorded: Option[LateRowsRecord], query: StreamExecution, batch: Long)

  private val planned = new ConcurrentHashMap[UUID, Planned]()
  private val claims = new ConcurrentHashMap[UUID, LateRowsRecord]()

  /** Run `query`'s table, at `location`, as its first micro-batch `batch` plans it. */
  def plan(query: StreamExecution, table: TableIdentifier, location: String, recorded: Option[LateRowsRecord],
      batch: Long): Unit =
    if (!claims.containsKey(query.runId)) {
      planned.putIfAbsent(query.runId, Planned(table, location, query.resolvedCheckpointRoot, recorded, query, batch))
    }

  /**
   * The record run `runId` writes with: at its first micro-batch's run, the table claimed for
   * its checkpoint ([[LateRowsTable.claim]]), then the record kept, or a new one written. A new
   * record (a table new to the query, or one dropped and created again since: its writer file
   * went with it) starts its log at the micro-batch planned first, after the entries the log
   * already has.
   */
  def claimed(session: SparkSession, runId: UUID): LateRowsRecord = claims.computeIfAbsent(runId, _ => {
    val run = Option(planned.get(runId)).getOrElse(throw new IllegalStateException(s"run $runId planned no late-rows table"))
        val claim = LateRowsTable.claim(session, run.table, run.location, run.checkpoint)
    val record = run.recorded.filter(r => r.location == run.location && claim.claimedBefore)
      .getOrElse(LateRowsRecord(LateRowsTable.show(run.table), run.location, run.batch - claim.log.entries))
    LateRowsRecord.write(session, run.checkpoint, record)
    LateRowsPublisher.watch(run.query, claim.log, record.firstBatch)
    planned.remove(runId)
    record
  })
}
