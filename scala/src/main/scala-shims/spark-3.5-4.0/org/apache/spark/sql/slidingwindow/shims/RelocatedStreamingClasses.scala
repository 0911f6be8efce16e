package org.apache.spark.sql.slidingwindow.shims

import org.apache.spark.sql.execution.{streaming => stateful}
import org.apache.spark.sql.execution.{streaming => runtime}
import org.apache.spark.sql.execution.{streaming => sinks}

/**
 * Spark's streaming classes the operator builds on, in `org.apache.spark.sql.execution.streaming` as Spark 3.5 and 4.0 keep them
 * (Spark 4.1 moved them to `streaming.operators.stateful` and `streaming.runtime`). Common code imports them from here.
 */
object RelocatedStreamingClasses {
  type StatefulOperatorStateInfo = stateful.StatefulOperatorStateInfo
  val StatefulOperatorStateInfo: stateful.StatefulOperatorStateInfo.type = stateful.StatefulOperatorStateInfo
  type StateStoreWriter = stateful.StateStoreWriter
  type WatermarkSupport = stateful.WatermarkSupport
  val StatefulOperatorPartitioning: stateful.StatefulOperatorPartitioning.type = stateful.StatefulOperatorPartitioning
  type StatefulOperatorCustomMetric = stateful.StatefulOperatorCustomMetric
  val StatefulOperatorCustomSumMetric: stateful.StatefulOperatorCustomSumMetric.type =
    stateful.StatefulOperatorCustomSumMetric
  type IncrementalExecution = runtime.IncrementalExecution
  type StreamExecution = runtime.StreamExecution
  val StreamExecution: runtime.StreamExecution.type = runtime.StreamExecution
  type FileStreamSinkLog = sinks.FileStreamSinkLog
  val FileStreamSinkLog: sinks.FileStreamSinkLog.type = sinks.FileStreamSinkLog
  type SinkFileStatus = sinks.SinkFileStatus
  type FileSystemBasedCheckpointFileManager = runtime.FileSystemBasedCheckpointFileManager
  val SinkFileStatus: sinks.SinkFileStatus.type = sinks.SinkFileStatus
}
