package org.apache.spark.sql.slidingwindow.planning

import java.util.UUID
import java.util.concurrent.ConcurrentHashMap

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.execution.{ProjectExec, SparkPlan}
import org.apache.spark.sql.slidingwindow.execution.LateRowsSplitExec
import org.apache.spark.sql.slidingwindow.late.{LateRowsColumns, LateRowsRecord, LateRowsRuns, LateRowsTable, LateRowsTarget}
import org.apache.spark.sql.slidingwindow.logical.LateRowsSplit
import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.{IncrementalExecution, StatefulOperatorStateInfo}

/**
 * Where a streaming operator's late rows go, decided when a micro-batch is planned, from the
 * setting `spark.sql.slidingWindow.lateRows.table` as the query's session has it (read when the
 * query starts, as the other settings of a query are): nowhere without it; else the query's
 * late-rows table ([[LateRowsTable]]), created and checked once per run of the query and
 * operator, before any micro-batch runs, then claimed and recorded in its checkpoint when the
 * first micro-batch runs ([[LateRowsRuns]], [[LateRowsRecord]]).
 */
object LateRowsPlan {
  // Per run of a query: the record of its checkpoint, checked against the setting. Per run and
  // operator: the table's location, once it fits the operator's input.
  private val recorded = new ConcurrentHashMap[UUID, Option[LateRowsRecord]]()
  private val locations = new ConcurrentHashMap[(UUID, Long), String]()

  /**
   * The target of operator `operatorId` (the window function `operator`, which writes the columns
   * `written`) in the micro-batch `execution` plans; None outside a running query and without a
   * table. The table is claimed and recorded when the micro-batch runs ([[LateRowsRuns]]).
   */
  def target(session: SparkSession, execution: Option[IncrementalExecution], operator: String,
      operatorId: Option[Long], written: Seq[LateRowsColumns.Written], whole: Boolean = false): Option[LateRowsTarget] = for {
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
      LateRowsColumns.schema(LateRowsTable.show(table), operator, written, whole), operator, before.map(_.location), checkpoint))
    LateRowsRuns.plan(query, table, location, before, ie.currentBatchId)
    LateRowsTarget(LateRowsTable.show(table), location, operator, id)
  }

  /**
   * The plan of a streaming operator's input, and where a split takes its late rows out before
   * its shuffle ([[LateRowsSplit]], placed by [[org.apache.spark.sql.slidingwindow.analysis.PlanLateRowsSplit]]),
   * the table's target for the split's columns: the operator then drops no row itself.
   */
  final case class Input(plan: SparkPlan, splitTarget: Option[LateRowsTarget])

  /** The input `child` of operator `operator` (`late_operator`), whose state info is `stateInfo`. */
  def input(session: SparkSession, execution: Option[IncrementalExecution], operator: String,
      stateInfo: Option[StatefulOperatorStateInfo], child: LogicalPlan, planLater: LogicalPlan => SparkPlan): Input =
    child match {
      // The optimizer prunes what the operator does not read by a Project over the split.
      case Project(columns, s: LateRowsSplit) if columns.forall(_.isInstanceOf[Attribute]) =>
        input(session, execution, operator, stateInfo, s.copy(output = columns.map(_.toAttribute)), planLater)
      case s: LateRowsSplit =>
        val written = LateRowsColumns.whole(s.child.output, s.whole)
        (for {
          info <- stateInfo
          target <- target(session, execution, operator, Some(info.operatorId), written, whole = true)
        } yield Input(LateRowsSplitExec(s.time, s.output, written, target, info, None, planLater(s.child)), Some(target)))
          .getOrElse(Input(ProjectExec(s.output, planLater(s.child)), None))
      case other => Input(planLater(other), None)
    }
}
