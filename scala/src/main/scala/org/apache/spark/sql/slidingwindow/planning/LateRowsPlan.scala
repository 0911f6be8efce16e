package org.apache.spark.sql.slidingwindow.planning

import java.util.UUID
import java.util.concurrent.ConcurrentHashMap

import org.apache.spark.sql.slidingwindow.late.{LateRowsColumns, LateRowsPublisher, LateRowsRecord, LateRowsTable, LateRowsTarget}
import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.IncrementalExecution

/**
 * Where a streaming operator's late rows go, decided when a micro-batch is planned, from the
 * setting `spark.sql.slidingWindow.lateRows.table` as the query's session has it (read when the
 * query starts, as the other settings of a query are): nowhere without it; else the query's
 * late-rows table ([[LateRowsTable]]), created, checked and claimed once per run of the query,
 * before any micro-batch runs, and recorded in its checkpoint ([[LateRowsRecord]]).
 */
object LateRowsPlan {
  // Per run of a query: the record of its checkpoint, checked against the setting; the record
  // it runs with, once the table is claimed. Per run and operator: the table's location, once
  // it fits the operator's input.
  private val recorded = new ConcurrentHashMap[UUID, Option[LateRowsRecord]]()
  private val runs = new ConcurrentHashMap[UUID, LateRowsRecord]()
  private val locations = new ConcurrentHashMap[(UUID, Long), String]()

  /**
   * The target of operator `operatorId` (the window function `operator`, which writes the columns
   * `written`) in the micro-batch `execution` plans; None outside a running query and without a table.
   */
  def target(session: SparkSession, execution: Option[IncrementalExecution], operator: String,
      operatorId: Option[Long], written: Seq[LateRowsColumns.Written]): Option[LateRowsTarget] = for {
    ie <- execution
    id <- operatorId
    query <- StreamingQueryContext.currentQuery(session)
    checkpoint = query.resolvedCheckpointRoot
    named = LateRowsTable.named(session)
    before = recorded.computeIfAbsent(ie.runId, _ => LateRowsRecord.checked(session, checkpoint, named.map(LateRowsTable.show)))
    table <- named
  } yield {
    // Every operator's input must fit the table; the first one planned creates it (where the
    // checkpoint recorded it, if its catalog lost it: a new application's in-memory catalog).
    val location = locations.computeIfAbsent((ie.runId, id), _ => LateRowsTable.ensure(session, table,
      LateRowsColumns.schema(LateRowsTable.show(table), operator, written), operator, before.map(_.location), checkpoint))
    val record = runs.computeIfAbsent(ie.runId, _ => {
      // A table new to the query, or one created again since (its files, the writer's among them,
      // went with the table dropped): its log starts with this micro-batch.
      val r = before.filter(r => r.location == location && LateRowsTable.writtenBy(session, location, checkpoint))
        .getOrElse(LateRowsRecord(LateRowsTable.show(table), location, ie.currentBatchId))
      // Claimed before it is recorded: a table the query cannot write is no table of its checkpoint.
      val log = LateRowsTable.claim(session, table, location, checkpoint)
      LateRowsRecord.write(session, checkpoint, r)
      LateRowsPublisher.watch(query, log, r.firstBatch)
      r
    })
    LateRowsTarget(record.table, record.location, record.firstBatch, operator, id)
  }
}
