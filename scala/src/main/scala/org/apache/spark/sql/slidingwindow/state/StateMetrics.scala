package org.apache.spark.sql.slidingwindow.state

/**
 * What a micro-batch's state work did, as the operator reports it in its SQL metrics and
 * `stateOperators` progress: a micro-batch's state work is in proportion to its input and output,
 * not to the state it keeps, and these counts show it.
 *
 * @param rowsRead             state rows read (a group record read from memory is not one)
 * @param rowsWritten          state rows written, new or not
 * @param rowsRemoved          state rows deleted (each one that existed)
 * @param rowsCreated          rows written that did not exist before: with [[rowsRemoved]], how
 *                             the number of state rows changed
 * @param recordsFromCache     state format 2: group records read from the executor's memory
 *                             ([[RecordCache]]), not the store
 * @param groupsMovedToRows    state format 2: groups whose rows moved out of their record ...
 * @param groupsMovedToRecords ... and back into it
 * @param rowCount             the state rows of the partition once this micro-batch's changes are
 *                             in, where the operator counts them itself (state format 2 with a
 *                             time index: [[CommitRow]]); None where the provider does
 */
final case class StateMetrics(
    rowsRead: Long,
    rowsWritten: Long,
    rowsRemoved: Long,
    rowsCreated: Long,
    recordsFromCache: Long,
    groupsMovedToRows: Long,
    groupsMovedToRecords: Long,
    rowCount: Option[Long])

/** The counts behind [[StateMetrics]], shared by every layer of one micro-batch's state. */
private[state] final class StateCounters {
  var read = 0L
  var written = 0L
  var removed = 0L
  var created = 0L
  var fromCache = 0L
  var movedToRows = 0L
  var movedToRecords = 0L

  def snapshot(rowCount: Option[Long]): StateMetrics =
    StateMetrics(read, written, removed, created, fromCache, movedToRows, movedToRecords, rowCount)
}
