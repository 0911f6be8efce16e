package org.apache.spark.sql.slidingwindow.planning

import java.util.{Collections, UUID, WeakHashMap}

import org.apache.spark.internal.Logging
import org.apache.spark.sql.catalyst.streaming.InternalOutputModes
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.expressions.WindowKind
import org.apache.spark.sql.slidingwindow.logical.WindowedAggregate
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.{IncrementalExecution, StreamExecution}
import org.apache.spark.sql.slidingwindow.state.StateArrangement
import org.apache.spark.sql.slidingwindow.analysis.TimeColumnWatermark
import org.apache.spark.sql.types.TimestampNTZType

/**
 * What the driver logs about a streaming windowed aggregation: once per run of a query, when
 * its first micro-batch is planned (every micro-batch is planned anew).
 *  - INFO: the state format version the operator runs with, and the state store provider;
 *  - WARN: the state has no time index (a provider other than RocksDB, or RocksDB on Spark 3.5,
 *    which has no column families), so every group of the state is scanned in every micro-batch
 *    that has a watermark; the advice says what gives one.
 *  - WARN: the Update output mode without a watermark on the time column, so the state grows
 *    without bound; the advice says how to bound it.
 */
object StreamingQueryLog extends Logging {

  // Runs already logged, by run id: the key is the query's own UUID, kept while the query is.
  private val logged = Collections.synchronizedSet(
    Collections.newSetFromMap(new WeakHashMap[UUID, java.lang.Boolean]()))

  def planned(
      execution: IncrementalExecution,
      operator: WindowedAggregate,
      stateFormatVersion: Int,
      arrangement: StateArrangement,
      conf: SQLConf): Unit = {
    if (logged.add(execution.runId)) {
      val function = operator.definition.kind.functionName
      val query = Option(execution.sparkSession.sparkContext.getLocalProperty(StreamExecution.QUERY_ID_KEY))
        .getOrElse("?")
      val provider = conf.getConf(SQLConf.STATE_STORE_PROVIDER_CLASS)
      logInfo(s"Streaming query $query (run ${execution.runId}): $function aggregation with " +
        s"state format version $stateFormatVersion ($arrangement), state store provider $provider")
      if (!arrangement.timeIndex) {
        logWarning(s"Streaming query $query (run ${execution.runId}): the state store provider " +
          s"$provider (on this Spark, for this checkpoint) has no time index, so the $function aggregation scans every group of its " +
          s"state in every micro-batch that has a watermark, and the cost of a micro-batch " +
          s"grows with the state. " + advice(provider))
      }
      if (execution.outputMode == InternalOutputModes.Update && !TimeColumnWatermark.onTime(operator.time)) {
        logWarning(s"Streaming query $query (run ${execution.runId}): " + unbounded(operator))
      }
    }
  }

  /** Why the state of an Update-mode aggregation without a watermark grows, and how to bound it. */
  private def unbounded(operator: WindowedAggregate): String = {
    val function = operator.definition.kind.functionName
    val time = TimeColumnWatermark.describe(operator)
    val kept = operator.definition.kind match {
      case WindowKind.Sliding => "no row is ever late and no state is ever removed: it keeps " +
          "the partial aggregates of every time of every group"
      case WindowKind.Batch => "no window is ever closed by a watermark: it keeps the open " +
          "window of every group it has seen"
    }
    val others = TimeColumnWatermark.declared(operator.child) match {
      case Seq() => ""
      case columns => s" (The watermark on ${columns.mkString(", ")} does not apply to it.)"
    }
    val ntz = if (operator.time.dataType == TimestampNTZType) {
      " A TIMESTAMP_NTZ column takes no watermark: cast it to TIMESTAMP first."
    } else ""
    s"the $function aggregation runs in the Update output mode without a watermark on its time " +
      s"column $time, so $kept, and its state grows without bound.$others To bound it, put a " +
      "watermark on the time column before the aggregation: withWatermark(\"" + time + "\", delay), " +
      s"where delay is how late a row may arrive.$ntz"
  }

  /** What gives a new query a time index, for one run without it on `provider`. */
  private def advice(provider: String): String =
    if (provider == StateArrangement.rocksDbProvider) {
      "RocksDB keeps a time index on Spark 4.0 and later (it needs column families): a query " +
        "started there gets one (a checkpoint keeps the arrangement it started with)."
    } else {
      s"Use RocksDB for large state or many groups: set " +
        s"${SQLConf.STATE_STORE_PROVIDER_CLASS.key}=${StateArrangement.rocksDbProvider} " +
        s"before the query first starts (a checkpoint keeps its provider)."
    }
}
