package org.apache.spark.sql.slidingwindow.late

/**
 * Where one streaming operator of a running query writes the rows it drops as late: the query's
 * late-rows table (`spark.sql.slidingWindow.lateRows.table`), checked when the query's first
 * micro-batch is planned and claimed when it runs ([[LateRowsRuns]]). Part of the operator's
 * plan, shown by `explain()`.
 *
 * @param table      the table's qualified name
 * @param location   the table's location (a URI)
 * @param operator   the window function, as `late_operator` names it
 * @param operatorId the operator's id in the query's checkpoint
 */
final case class LateRowsTarget(table: String, location: String, operator: String, operatorId: Long) {
  override def toString: String = s"$table ($location)"
}
