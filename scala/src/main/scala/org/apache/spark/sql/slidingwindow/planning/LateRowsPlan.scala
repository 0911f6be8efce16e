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
  // Per run of a query: its record, once checked (None: no table); per run and operator: the
  // location of the table, once it fits the operator's input.
  private val runs = new ConcurrentHashMap[UUID, Option[LateRowsRecord]]()
  private val locations = new ConcurrentHashMap[(UUID, Long), String]()

  /**
   * The target of operator `operatorId` (the window function `operator`, which writes the columns `written`)
   * in the micro-batch `execution` plans; None outside a running query and without a table.
   */
  def target(session: SparkSession, execution: Option[IncrementalExecution], operator: String,
      operatorId: Option[Long], written: Seq[LateRowsColumns.Written]): Option[LateRowsTarget] = for {
    ie <- execution
    id <- operatorId
    query <- StreamingQueryContext.currentQuery(session)
    named = LateRowsTable.named(session)
    // Every operator's input must fit the table; the first one planned creates it.
    location = named.map { table =>
      val schema = LateRowsColumns.schema(LateRowsTable.show(table), operator, written)
      locations.computeIfAbsent((ie.runId, id), _ => LateRowsTable.ensure(session, table, schema, operator))
    }
    record <- runs.computeIfAbsent(ie.runId, _ => {
      val checkpoint = query.resolvedCheckpointRoot
      val record = LateRowsRecord.check(session, checkpoint, named.map(LateRowsTable.show), location.get,
        ie.currentBatchId)
      // Claimed before it is recorded: a table the query cannot write is no table of its checkpoint.
      for (r <- record; table <- named) {
        val log = LateRowsTable.claim(session, table, r.location, checkpoint)
        LateRowsRecord.write(session, checkpoint, r)
        LateRowsPublisher.watch(query, log, r.firstBatch)
      }
      record
    })
  } yield LateRowsTarget(record.table, record.location, record.firstBatch, operator, id)
}
