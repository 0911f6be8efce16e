package org.apache.spark.sql.slidingwindow.shims

import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.{IncrementalExecution, StatefulOperatorStateInfo}

/** The state info of a stateful operator in the micro-batch `execution` plans (Spark 3.5). */
object StateInfoOfExecution {
  def apply(execution: IncrementalExecution, operatorId: Long, numPartitions: Int): StatefulOperatorStateInfo =
    StatefulOperatorStateInfo(
      execution.checkpointLocation, execution.runId, operatorId, execution.currentBatchId, numPartitions)
}
