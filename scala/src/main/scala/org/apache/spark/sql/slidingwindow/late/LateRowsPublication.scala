package org.apache.spark.sql.slidingwindow.late

import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.StateStoreWriter
import org.apache.spark.sql.streaming.StateOperatorProgress

/**
 * A streaming operator that writes late rows publishes them when Spark asks it for its progress:
 * the stream thread does, for the last micro-batch run, once Spark's commit log has it
 * ([[LateRowsPublisher]]).
 */
trait LateRowsPublication extends StateStoreWriter {
  def lateRows: Option[LateRowsTarget]

  override def getProgress(): StateOperatorProgress = {
    for (_ <- lateRows; info <- stateInfo) LateRowsPublisher.ran(info.queryRunId, info.storeVersion)
    super.getProgress()
  }
}
