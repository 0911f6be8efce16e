package org.apache.spark.sql.slidingwindow.late

import org.apache.spark.sql.slidingwindow.execution.LateRowsSplitExec
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.StateStoreWriter
import org.apache.spark.sql.streaming.StateOperatorProgress
import org.apache.spark.sql.types.DataType

/**
 * A streaming operator that drops late rows, into its query's late-rows table where it has one
 * ([[LateRowsTarget]]): what each micro-batch's tasks drop them into (unless a split below its
 * shuffle takes them out first, [[LateRowsSplitExec]], whose counts it reports as its own), and their publication once
 * the micro-batch has committed, when Spark asks the operator for its progress (the stream thread
 * does, for the last micro-batch run, once Spark's commit log has it: [[LateRowsPublisher]]).
 */
trait LateRowsOperator extends StateStoreWriter {
  def lateRows: Option[LateRowsTarget]

  /**
   * Where each task of the micro-batch running now drops its late rows, prepared on the driver
   * ([[LateRowsOutput.prepare]]): a function for the tasks to call.
   *
   * @param written     the table's columns from the operator's input ([[LateRowsColumns.written]])
   * @param input       the types of the operator's input columns
   * @param lateMicros  the operator's watermark for late rows
   * @param sparkLateMs Spark's own, in milliseconds, where the operator keeps an idle clock (else
   *                    the operator's is Spark's)
   */
  protected def lateRowsOfTasks(written: => Seq[LateRowsColumns.Written], input: Seq[DataType], lateMicros: Long,
      sparkLateMs: Option[Long]): () => LateRows = {
    // Where a split took the late rows out before the shuffle, none reach the operator.
    val output = lateRows.filter(_ => lateRowsSplit.isEmpty)
      .map(LateRowsOutput.prepare(session, getStateInfo.queryRunId, _, getStateInfo.storeVersion, written))
    val sparkLate = sparkLateMs.map(_ * 1000).getOrElse(lateMicros)
    () => LateRowsOutput.rowsOfTask(output, input, lateMicros, sparkLate)
  }

  /** The split that takes this operator's late rows out before its shuffle, where it has one. */
  private def lateRowsSplit: Option[LateRowsSplitExec] = stateInfo.flatMap(info => LateRowsSplitExec.of(this, info.operatorId))

  override def getProgress(): StateOperatorProgress = {
    for (_ <- lateRows; info <- stateInfo) LateRowsPublisher.ran(info.queryRunId, info.storeVersion)
    // The rows its split dropped, as the operator's own.
    for (split <- lateRowsSplit; name <- Seq("numRowsDroppedByWatermark", "numLateRowsWritten")) {
      longMetric(name).set(split.longMetric(name).value)
    }
    super.getProgress()
  }
}
