package org.apache.spark.sql.slidingwindow.execution

import java.util.concurrent.TimeUnit.NANOSECONDS

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, Expression, NamedExpression, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.{AllTuples, Distribution, Partitioning, UnknownPartitioning}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.{StatefulOperatorCustomMetric, StatefulOperatorCustomSumMetric, StatefulOperatorPartitioning, StatefulOperatorStateInfo}
import org.apache.spark.sql.slidingwindow.state.{PendingParts, StateStoreSchema, TrailingFramesState, TrailingStateLayout, WindowState}
import org.apache.spark.sql.streaming.OutputMode
import org.apache.spark.util.CompletionIterator

/**
 * Trailing windows over a stream (`agg OVER (PARTITION BY ... ORDER BY time RANGE BETWEEN size
 * PRECEDING AND CURRENT ROW)`, several sizes at once) in the Append output mode: each input row is
 * emitted once, in the first micro-batch whose watermark is at or past its time, with the
 * aggregates over its group's rows in each frame, the same values as the batch query's
 * ([[TrailingFramesProcessor]]). A StateStoreWriter, so that Spark validates its state schema,
 * runs no-data batches for it and reports it in `stateOperators`; its state info is set when it
 * is planned and its watermarks by [[org.apache.spark.sql.slidingwindow.planning.StreamingWatermarks]].
 *
 * @param time     the ORDER BY column, with the watermark that says which rows are due and which
 *                 are late (that of the TIMESTAMP column it is `unix_micros` of, if it is)
 * @param timeName the name of that TIMESTAMP column
 * @param stateFormatVersion the version of its state its checkpoint records ([[TrailingStateLayout.supported]])
 */
case class StreamingTrailingWindowExec(
    windowExpressions: Seq[NamedExpression],
    partitionSpec: Seq[Expression],
    orderSpec: Seq[SortOrder],
    time: Attribute,
    timeName: String,
    stateFormatVersion: Int,
    stateInfo: Option[StatefulOperatorStateInfo],
    outputMode: Option[OutputMode],
    eventTimeWatermarkForLateEvents: Option[Long],
    eventTimeWatermarkForEviction: Option[Long],
    child: SparkPlan)
  extends BaseTrailingWindowExec with WindowStateStoreWriter {

  override def nodeName: String = "StreamingTrailingWindow"
  override def shortName: String = "trailingWindow"
  override def keyExpressions: Seq[Attribute] = partitionSpec.collect { case a: Attribute => a }

  override protected def stateLayout: StateStoreSchema = layout
  private lazy val layout = new TrailingStateLayout(partitionSpec, child.output)
  override protected def useColumnFamilies: Boolean = false
  override protected def orderedRows: Boolean = false

  override def requiredChildDistribution: Seq[Distribution] =
    if (partitionSpec.isEmpty) AllTuples :: Nil
    else if (stateInfo.isEmpty) super.requiredChildDistribution
    else StatefulOperatorPartitioning.getCompatibleDistribution(partitionSpec, getStateInfo, conf) :: Nil

  // A group's rows are emitted where its state is, in time order within a micro-batch.
  override def outputPartitioning: Partitioning = child.outputPartitioning match {
    case e: Expression if !e.references.subsetOf(outputSet) => UnknownPartitioning(child.outputPartitioning.numPartitions)
    case p => p
  }

  override def customStatefulOperatorMetrics: Seq[StatefulOperatorCustomMetric] =
    Seq(StatefulOperatorCustomSumMetric("numStateRowsRead", "number of state rows read"),
      StatefulOperatorCustomSumMetric("numGroupsEmitted", "number of groups with rows emitted"))

  /** Another micro-batch without new input when Spark's watermark moved, as Spark's own operators. */
  override def shouldRunAnotherBatch(newInputWatermark: Long): Boolean =
    eventTimeWatermarkForEviction.exists(newInputWatermark > _)

  override protected def details: Seq[(String, String, String)] = Seq(
    ("time", "Time", timeName),
    ("state", "State", stateInfo.toString),
    ("stateFormatVersion", "State format version", stateFormatVersion.toString),
    ("mode", "Output mode", outputMode.map(_.toString).getOrElse("?")),
    ("watermarks", "Watermarks (late rows / eviction, ms)",
      s"${eventTimeWatermarkForLateEvents.getOrElse("?")}/${eventTimeWatermarkForEviction.getOrElse("?")}"))

  override protected def doExecute(): RDD[InternalRow] = {
    metrics // initialise the metrics on the driver
    val numDropped = longMetric("numRowsDroppedByWatermark")
    val numUpdated = longMetric("numUpdatedStateRows")
    val numRemoved = longMetric("numRemovedStateRows")
    val updatesTime = longMetric("allUpdatesTimeMs")
    val commitTime = longMetric("commitTimeMs")
    val numRead = longMetric("numStateRowsRead")
    val numGroupsEmitted = longMetric("numGroupsEmitted")
    val windows = trailingWindows(numGroupsEmitted, longMetric("numOutputRows"))
    val layout = this.layout
    val time = BindReferences.bindReference(orderSpec.head.child, child.output)
    val late = eventTimeWatermarkForLateEvents.map(_ * 1000).getOrElse(Long.MinValue)
    val eviction = eventTimeWatermarkForEviction.map(_ * 1000).getOrElse(Long.MinValue)
    val (batchId, largestSize) = (getStateInfo.storeVersion, this.largestSize)
    val lags = bySpan.map(_._1._2).toArray
    val chunkElements = TrailingFramesState.chunkElements(conf)
    val partBytes = PendingParts.partBytes(conf)
    val stepBytes = TrailingDueSteps.stepBytes(conf)

    // The operator counts its state rows: its stores skip the provider's count where Spark lets
    // them (Spark 4), unless the tests check one against the other.
    val verifyCount = conf.getConfString(WindowState.verifyRowCountKey, "false").toBoolean
    val ownCount = WindowStateStoreWriter.storesMaySkipRowCount
    val numTotal = longMetric("numTotalStateRows")

    mapPartitionsWithWindowState(child.execute(), providerCountsRows = !ownCount || verifyCount) {
        (store: StateStore, rows: Iterator[InternalRow]) =>
      val start = System.nanoTime()
      val processor = new TrailingFramesProcessor(store, layout, time, batchId, late, eviction, largestSize, lags,
        chunkElements, partBytes, stepBytes, windows)
      val out = processor.process(rows)
      // As Spark's StateStoreSaveExec: the rows are handed on as they are computed, and the store
      // is committed once the last one is.
      CompletionIterator[InternalRow, Iterator[InternalRow]](out, {
        processor.finish()
        updatesTime += NANOSECONDS.toMillis(System.nanoTime() - start)
        numDropped += processor.droppedLateRows
        numUpdated += processor.rowsWritten
        numRemoved += processor.rowsRemoved
        numRead += processor.rowsRead
        commitTime += timeTakenMs { store.commit() }
        setStoreMetrics(store)
        val count = processor.rowCount
        if (verifyCount && store.metrics.numKeys != count) {
          throw new IllegalStateException(
            s"state rows counted by the operator: $count, by the provider: ${store.metrics.numKeys}")
        }
        if (ownCount) numTotal.set(count)
        setOperatorMetrics()
      })
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): StreamingTrailingWindowExec =
    copy(child = newChild)
}
