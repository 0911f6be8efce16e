package org.apache.spark.sql.slidingwindow.execution

import java.util.concurrent.TimeUnit.NANOSECONDS

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, NamedExpression, SortOrder}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.plans.physical.Distribution
import org.apache.spark.sql.catalyst.streaming.InternalOutputModes
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, WindowBufferConf}
import org.apache.spark.sql.slidingwindow.expressions.{KeyBytesOrder, WindowDefinition}
import org.apache.spark.sql.slidingwindow.logical.WindowedAggregate
import org.apache.spark.sql.slidingwindow.idle.{IdleClock, IdleSettings, QuietClose}
import org.apache.spark.sql.slidingwindow.late.{LateRowsColumns, LateRowsOperator, LateRowsTarget}
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.{StatefulOperatorCustomMetric, StatefulOperatorCustomSumMetric, StatefulOperatorPartitioning, StatefulOperatorStateInfo}
import org.apache.spark.sql.slidingwindow.state.sliding.{RecordCache, RecordLimits, WindowState, WindowStateLayout}
import org.apache.spark.sql.slidingwindow.state.{OperatorState, StateArrangement}
import org.apache.spark.sql.streaming.OutputMode
import org.apache.spark.util.CompletionIterator

/**
 * The streaming windowed aggregation: a StateStoreWriter, so that Spark validates its state
 * schema, writes its operator metadata, runs no-data batches for it and reports it in
 * `stateOperators`. Its state info is set when it is planned and its watermarks by
 * [[org.apache.spark.sql.slidingwindow.planning.StreamingWatermarks]].
 */
case class StreamingWindowedAggregateExec(
    definition: WindowDefinition,
    keys: Seq[Attribute],
    time: Attribute,
    order: Option[Attribute],
    window: Attribute,
    aggregates: Seq[AggregateExpression],
    resultExpressions: Seq[NamedExpression],
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
  extends BaseWindowedAggregateExec with WindowStateStoreWriter with QuietClose with LateRowsOperator {

  override def shortName: String = WindowedAggregate.shortName(definition)
  override def keyExpressions: Seq[Attribute] = keys

  private def appendMode: Boolean = outputMode.contains(InternalOutputModes.Append)

  override protected def stateLayout: WindowStateLayout = layout
  private lazy val layout = WindowStateLayout(stateFormatVersion, keys, DataTypeUtils.fromAttributes(
    aggregates.flatMap(_.aggregateFunction.aggBufferAttributes)))

  // In a running query, the distribution of the state stores; outside one, the base's.
  override def requiredChildDistribution: Seq[Distribution] =
    if (keys.isEmpty || stateInfo.isEmpty) super.requiredChildDistribution
    else StatefulOperatorPartitioning.getCompatibleDistribution(keys, getStateInfo, conf) :: Nil

  // With RocksDB's ordered rows, the groups come in the byte order of their state keys
  // (KeyBytesOrder), where the keys' types allow: their records are read and written in
  // RocksDB's own order. Within a group, as the base says.
  override def requiredChildOrdering: Seq[Seq[SortOrder]] = {
    val byKeyBytes = if (arrangement.orderedRows && conf.getConfString(KeyBytesOrder.enabledKey, "true").toBoolean) {
      KeyBytesOrder.of(keys)
    } else None
    byKeyBytes.map(groups => Seq(groups ++ (order.toSeq :+ time).map(SortOrder(_, Ascending))))
      .getOrElse(super.requiredChildOrdering)
  }

  override def customStatefulOperatorMetrics: Seq[StatefulOperatorCustomMetric] =
    Seq(StatefulOperatorCustomSumMetric("numWindowsEmitted", "number of windows emitted"),
      StatefulOperatorCustomSumMetric("numStateRowsRead", "number of state rows read"),
      StatefulOperatorCustomSumMetric("numRecordsReadFromCache",
        "number of group records read from the executor's memory instead of the store (state format 2)"),
      StatefulOperatorCustomSumMetric("numGroupsMovedToRows",
        "number of groups whose rows moved out of their record (state format 2)"),
      StatefulOperatorCustomSumMetric("numGroupsMovedToRecords",
        "number of groups whose rows moved back into their record (state format 2)"),
      StatefulOperatorCustomSumMetric("numWindowsClosedWhileIdle",
        "number of windows emitted that Spark's own watermark left open: closed because the input went quiet"),
      StatefulOperatorCustomSumMetric("numLateRowsWritten",
        "number of rows dropped as late that were written to the query's late-rows table"))

  // As the checkpoint records (StateArrangement): a time index in a column family, and a group's
  // rows ordered by time.
  override protected def useColumnFamilies: Boolean = arrangement.timeIndex
  override protected def orderedRows: Boolean = arrangement.orderedRows

  // When Spark's watermark moved, or the idle clock would close windows (QuietClose).
  override def shouldRunAnotherBatch(newInputWatermark: Long): Boolean = runAnotherBatch(newInputWatermark)

  override protected def doExecute(): RDD[InternalRow] = {
    metrics // initialise the metrics on the driver
    val numOutputRows = longMetric("numOutputRows")
    val numDropped = longMetric("numRowsDroppedByWatermark")
    val numUpdated = longMetric("numUpdatedStateRows")
    val numRemoved = longMetric("numRemovedStateRows")
    val updatesTime = longMetric("allUpdatesTimeMs")
    val commitTime = longMetric("commitTimeMs")
    val (definition, layout, inputAttributes) = (this.definition, this.layout, child.output)
    val (keys, window, aggregates, results) = (this.keys, this.window, this.aggregates, resultExpressions)
    val (time, append) = (this.time, appendMode)
    val late = eventTimeWatermarkForLateEvents.map(_ * 1000)
    val eviction = eventTimeWatermarkForEviction.map(_ * 1000)
    val numWindows = longMetric("numWindowsEmitted")
    val numRead = longMetric("numStateRowsRead")
    val numFromCache = longMetric("numRecordsReadFromCache")
    val (numMovedToRows, numMovedToRecords) = (longMetric("numGroupsMovedToRows"), longMetric("numGroupsMovedToRecords"))
    val bufferConf = WindowBufferConf(conf)
    val arrangement = this.arrangement
    val limits = RecordLimits(conf, append)
    val recordCacheBytes = RecordCache.maxBytes(conf)
    // Where the operator counts its state rows, its stores skip the provider's count, unless the
    // tests check one against the other.
    val ownCount = WindowState.countsOwnRows(layout, arrangement)
    val verifyCount = ownCount && OperatorState.verifyRowCount(conf)
    val numTotal = longMetric("numTotalStateRows")
    val numClosedWhileIdle = longMetric("numWindowsClosedWhileIdle")
    // Where windows close while the input is quiet: Spark's own eviction watermark (windows past it
    // are counted), and the earliest visit scheduled, for the decision to run another micro-batch.
    val sparkEviction = sparkEvictionMicros
    val earliestVisit = earliestDueReport
    // Where the late rows go: counted, and written to the query's late-rows table if it has one.
    val numLateWritten = longMetric("numLateRowsWritten")
    val lateRowsOfTask = lateRowsOfTasks(LateRowsColumns.written(inputAttributes), inputAttributes.map(_.dataType),
      late.getOrElse(Long.MinValue), idleClock.map(_.sparkLateMs))

    mapPartitionsWithWindowState(child.execute(), providerCountsRows = !ownCount || verifyCount) {
        (store: StateStore, rows: Iterator[InternalRow]) =>
      val start = System.nanoTime()
      val state = WindowState(store, layout, arrangement, eviction, limits, recordCacheBytes, verifyCount)
      val buffers = new AggregateBuffers(aggregates, inputAttributes)
      val writer = new WindowRowWriter(keys, window, aggregates.map(_.resultAttribute), results, buffers)
      val lateOfTask = lateRowsOfTask()
      val processor = StreamingWindowsProcessor(definition, StreamingWindowsContext(state, buffers,
        writer, bufferConf, definition.sizeMicros, time, inputAttributes, append, late, eviction, sparkEviction,
        lateOfTask))
      val windows = processor.process(rows).map { row =>
        numOutputRows += 1
        numWindows += 1
        row
      }
      // As Spark's StateStoreSaveExec: the windows are handed on as they are computed, never
      // collected, and the store is committed once the last one is. So the update time also
      // counts the time of the operators that consume the rows, as Spark's own does.
      CompletionIterator[InternalRow, Iterator[InternalRow]](windows, {
        // The late rows' file is complete before the state commits (LateRowsLog).
        lateOfTask.commit()
        updatesTime += NANOSECONDS.toMillis(System.nanoTime() - start)
        numDropped += lateOfTask.count
        numLateWritten += lateOfTask.written
        val done = state.metrics
        numUpdated += done.rowsWritten
        numRemoved += done.rowsRemoved
        numRead += done.rowsRead
        numFromCache += done.recordsFromCache
        numMovedToRows += done.groupsMovedToRows
        numMovedToRecords += done.groupsMovedToRecords
        numClosedWhileIdle += processor.windowsClosedWhileIdle
        earliestVisit.foreach(_.add(state.timers.nextDue))
        commitTime += timeTakenMs { state.commit() }
        setStoreMetrics(store)
        // The operator's count of its rows instead of the provider's (this task's part of the
        // metric), which counts the commit row where it counts at all (else it reports -1).
        done.rowCount.foreach(numTotal.set)
        setOperatorMetrics()
      })
    }
  }

  override protected def details: Seq[(String, String, String)] = Seq(
    ("state", "State", stateInfo.toString),
    ("stateFormatVersion", "State format version", stateFormatVersion.toString),
    ("stateStorage", "State arrangement", arrangement.toString),
    ("mode", "Output mode", outputMode.map(_.toString).getOrElse("?")),
    ("watermarks", "Watermarks (late rows / eviction, ms)",
      s"${eventTimeWatermarkForLateEvents.getOrElse("?")}/${eventTimeWatermarkForEviction.getOrElse("?")}"),
    whenQuiet) ++ lateRows.map(t => ("lateRows", "Late rows", t.toString))

  override protected def withNewChildInternal(newChild: SparkPlan): StreamingWindowedAggregateExec =
    copy(child = newChild)
}
