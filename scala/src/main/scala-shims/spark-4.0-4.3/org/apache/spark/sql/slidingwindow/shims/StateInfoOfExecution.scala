package org.apache.spark.sql.slidingwindow.shims

import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.{IncrementalExecution, StatefulOperatorStateInfo}

/**
 * The state info of a stateful operator in the micro-batch `execution` plans, as Spark's own
 * `state` rule builds it: on Spark 4, with the state schemas and checkpoint ids of the batch.
 */
object StateInfoOfExecution {
  def apply(execution: IncrementalExecution, operatorId: Long, numPartitions: Int): StatefulOperatorStateInfo =
    StatefulOperatorStateInfo(
      execution.checkpointLocation,
      execution.runId,
      operatorId,
      execution.currentBatchId,
      numPartitions,
      execution.stateSchemaMetadatas.get(operatorId),
      execution.currentStateStoreCkptId.get(operatorId))
}
