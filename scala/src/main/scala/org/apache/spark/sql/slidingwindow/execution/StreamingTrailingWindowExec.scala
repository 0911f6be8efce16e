package org.apache.spark.sql.slidingwindow.execution

import java.util.concurrent.TimeUnit.NANOSECONDS

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, Expression, NamedExpression, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.{AllTuples, Distribution, Partitioning, UnknownPartitioning}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.slidingwindow.idle.{IdleClock, IdleSettings, QuietClose}
import org.apache.spark.sql.slidingwindow.late.{LateRowsColumns, LateRowsOperator, LateRowsTarget}
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.{StatefulOperatorCustomMetric, StatefulOperatorCustomSumMetric, StatefulOperatorPartitioning, StatefulOperatorStateInfo}
import org.apache.spark.sql.slidingwindow.state.{OperatorState, StateArrangement, StateStoreSchema}
import org.apache.spark.sql.slidingwindow.state.trailing.{PendingLimits, TrailingState, TrailingStateLayout}
import org.apache.spark.sql.slidingwindow.stored.StoredFrames
import org.apache.spark.sql.streaming.OutputMode
import org.apache.spark.util.CompletionIterator

/**
 * Trailing windows over a stream (`agg OVER (PARTITION BY ... ORDER BY time RANGE BETWEEN size
 * PRECEDING AND CURRENT ROW)`, several sizes at once) in the Append output mode: each input row is
 * emitted once, in the first micro-batch whose watermark is at or past its time, with the
 * aggregates over its group's rows in each frame, the same values as the batch query's
 * ([[TrailingFramesProcessor]]). A StateStoreWriter, so that Spark validates its state schema,
 * runs no-data batches for it and reports it in `stateOperators`; its state info is set when it
 * is planned and its watermarks by [[org.apache.spark.sql.slidingwindow.planning.StreamingWatermarks]]:
 * where its input can go quiet ([[IdleSettings]]), those of its [[IdleClock]], which emits the rows
 * Spark's own watermark keeps waiting (docs/streaming.md, "When the stream goes quiet").
 *
 * @param time     the ORDER BY column, with the watermark that says which rows are due and which
 *                 are late (that of the TIMESTAMP column it is `unix_micros` of, if it is)
 * @param timeName the name of that TIMESTAMP column
 * @param stateFormatVersion the version of its state its checkpoint records ([[TrailingStateLayout.supported]], [[TrailingState]])
 * @param arrangement        how its checkpoint's state is arranged: with a time index of the groups' expiry
 *                           in a column family (RocksDB on Spark 4), or not
 */
case class StreamingTrailingWindowExec(
    windowExpressions: Seq[NamedExpression],
    partitionSpec: Seq[Expression],
    orderSpec: Seq[SortOrder],
    time: Attribute,
    timeName: String,
    stateFormatVersion: Int,
    arrangement: StateArrangement,
    stateInfo: Option[StatefulOperatorStateInfo],
    outputMode: Option[OutputMode],
    eventTimeWatermarkForLateEvents: Option[Long],
    eventTimeWatermarkForEviction: Option[Long],
    idle: IdleSettings,
    idleClock: Option[IdleClock],
    lateRows: Option[LateRowsTarget],
    child: SparkPlan)
  extends BaseTrailingWindowExec with WindowStateStoreWriter with QuietClose with LateRowsOperator {

  override def nodeName: String = "StreamingTrailingWindow"
  override def shortName: String = "trailingWindow"
  override def keyExpressions: Seq[Attribute] = partitionSpec.collect { case a: Attribute => a }

  override protected def stateLayout: StateStoreSchema = layout
  private lazy val layout = new TrailingStateLayout(partitionSpec, child.output)
  override protected def useColumnFamilies: Boolean = arrangement.timeIndex
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
      StatefulOperatorCustomSumMetric("numGroupsEmitted", "number of groups with rows emitted"),
      StatefulOperatorCustomSumMetric("numRowsClosedWhileIdle",
        "number of rows emitted that Spark's own watermark kept waiting: emitted because the input went quiet"),
      StatefulOperatorCustomSumMetric("numLateRowsWritten",
        "number of rows dropped as late that were written to the query's late-rows table"))

  // When Spark's watermark moved, or the idle clock would make rows due (QuietClose).
  override def shouldRunAnotherBatch(newInputWatermark: Long): Boolean = runAnotherBatch(newInputWatermark)

  override protected def details: Seq[(String, String, String)] = Seq(
    ("time", "Time", timeName),
    ("state", "State", stateInfo.toString),
    ("stateFormatVersion", "State format version", stateFormatVersion.toString),
    ("stateStorage", "State arrangement", arrangement.toString),
    ("mode", "Output mode", outputMode.map(_.toString).getOrElse("?")),
    ("watermarks", "Watermarks (late rows / eviction, ms)",
      s"${eventTimeWatermarkForLateEvents.getOrElse("?")}/${eventTimeWatermarkForEviction.getOrElse("?")}"),
    whenQuiet) ++ lateRows.map(t => ("lateRows", "Late rows", t.toString))

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
    val (batchId, largestSize, version, arrangement) =
      (getStateInfo.storeVersion, this.largestSize, stateFormatVersion, this.arrangement)
    val lags = bySpan.map(_._1._2).toArray
    val chunkElements = StoredFrames.chunkElements(conf)
    val limits = PendingLimits(conf)
    val stepBytes = TrailingDueSteps.stepBytes(conf)
    // Where rows are emitted while the input is quiet: Spark's own eviction watermark (rows past it
    // are counted), and the earliest time a row waits for, for the decision to run another micro-batch.
    val numClosedWhileIdle = longMetric("numRowsClosedWhileIdle")
    val sparkEviction = sparkEvictionMicros
    val earliestDue = earliestDueReport
    // Where the late rows go: counted, and written to the query's late-rows table if it has one.
    val numLateWritten = longMetric("numLateRowsWritten")
    val lateRowsOfTask = lateRowsOfTasks(LateRowsColumns.written(child.output, Some(orderSpec.head.child -> timeName)),
      child.output.map(_.dataType), late, idleClock.map(_.sparkLateMs))

    // The operator counts its state rows: its stores skip the provider's count where Spark lets
    // them (Spark 4), unless the tests check one against the other.
    val verifyCount = OperatorState.verifyRowCount(conf)
    val ownCount = WindowStateStoreWriter.storesMaySkipRowCount
    val numTotal = longMetric("numTotalStateRows")

    mapPartitionsWithWindowState(child.execute(), providerCountsRows = !ownCount || verifyCount) {
        (store: StateStore, rows: Iterator[InternalRow]) =>
      val start = System.nanoTime()
      val state = TrailingState(version, store, layout, arrangement, late, eviction, limits, verifyCount)
      val lateOfTask = lateRowsOfTask()
      val processor = new TrailingFramesProcessor(state, time, batchId, late, eviction, largestSize, lags,
        chunkElements, stepBytes, windows, sparkEviction, lateOfTask)
      val out = processor.process(rows)
      // As Spark's StateStoreSaveExec: the rows are handed on as they are computed, and the store
      // is committed once the last one is.
      CompletionIterator[InternalRow, Iterator[InternalRow]](out, {
        processor.finish()
        // The late rows' file is complete before the state commits (LateRowsLog).
        lateOfTask.commit()
        updatesTime += NANOSECONDS.toMillis(System.nanoTime() - start)
        numDropped += lateOfTask.count
        numLateWritten += lateOfTask.written
        val done = state.metrics
        numUpdated += done.rowsWritten
        numRemoved += done.rowsRemoved
        numRead += done.rowsRead
        numClosedWhileIdle += processor.rowsClosedWhileIdle
        earliestDue.foreach(_.add(state.nextDue))
        commitTime += timeTakenMs { state.commit() }
        setStoreMetrics(store)
        if (ownCount) done.rowCount.foreach(numTotal.set)
        setOperatorMetrics()
      })
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): StreamingTrailingWindowExec =
    copy(child = newChild)
}
