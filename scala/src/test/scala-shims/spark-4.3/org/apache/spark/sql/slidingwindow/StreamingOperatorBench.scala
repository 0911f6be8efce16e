package org.apache.spark.sql.slidingwindow

import java.nio.file.Files

import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Literal, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, Complete, Count, Max, Sum}
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.execution.streaming.state.{RocksDBStateStoreProvider, StateStoreConf, StateStoreId}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, WindowBufferConf}
import org.apache.spark.sql.slidingwindow.execution.{StreamingWindowsContext, StreamingWindowsProcessor, WindowRowWriter, WindowStateStoreWriter}
import org.apache.spark.sql.slidingwindow.expressions.{KeyBytesOrder, WindowDefinition, WindowFunction, WindowKind}
import org.apache.spark.sql.slidingwindow.state.sliding.{RecordCache, RecordLimits, WindowState, WindowStateLayout}
import org.apache.spark.sql.slidingwindow.state.StateArrangement
import org.apache.spark.sql.types.{LongType, TimestampType}

/**
 * One partition of the streaming benchmark's query (benchmarks/streaming.py), without Spark's
 * query around it: the operator's processor over a RocksDB state store of its own, micro-batch
 * after micro-batch, in one thread. Each micro-batch gives every group `rows` rows spread over
 * 30 seconds of event time, sorted as the operator's input is (groups in the byte order of their
 * keys, unless `spark.sql.slidingWindow.state.keyBytesOrder` is false); the watermark trails the event
 * time by 10 seconds; the windows go nowhere. For profiling and tuning the operator's state
 * work, where a whole query's figures move by a tenth from run to run, not a test:
 *
 *   java -cp <test jar>:<main jar>:<every jar of pyspark> org.apache.spark.sql.slidingwindow.StreamingOperatorBench \
 *     [groups 25000] [window seconds 1200] [rows per group per micro-batch 1] [append|update] [rounds 3]
 *
 * The mode may be a list, `append,update`: the rounds of each mode in turn, in one JVM (the JIT
 * compiles the code that the modes share for the classes that ran first).
 *
 * Settings of the session (`spark.sql.*`) are read from the JVM's system properties (`-D`); the
 * store is opened with the operator's own settings over them, as a query opens it (RocksDB's
 * changelog checkpointing on, its key count off). No maintenance thread runs here: with changelog
 * checkpointing, the snapshots a query's executors upload in the background are not made.
 *
 * It prints, for each round, the mean time of a whole cycle of micro-batches (window + delay)
 * once the windows are full, and the state rows read, written and removed per input row; with
 * `-Dbench.perBatch=true`, also each micro-batch's time and state rows (a cycle's costly
 * micro-batches: those where the groups, all in step, flip their queues or move out chunks).
 */
object StreamingOperatorBench {
  def main(args: Array[String]): Unit = {
    org.apache.logging.log4j.core.config.Configurator.setRootLevel(org.apache.logging.log4j.Level.WARN)
    val groups = if (args.length > 0) args(0).toInt else 25000
    val windowSeconds = if (args.length > 1) args(1).toLong else 1200L
    val rowsPerGroup = if (args.length > 2) args(2).toInt else 1
    val modes = if (args.length > 3) args(3).split(",").toSeq else Seq("append")
    val rounds = if (args.length > 4) args(4).toInt else 3
    val advance = 30L * 1000000L
    val delay = 10L * 1000000L
    val start = 1704067200000000L

    val k = AttributeReference("k", LongType, nullable = false)()
    val ts = AttributeReference("ts", TimestampType, nullable = false)()
    val v = AttributeReference("v", LongType, nullable = false)()
    val input = Seq(k, ts, v)
    val aggregates = Seq(Count(Seq(Literal(1))), Sum(v), Max(v)).map(AggregateExpression(_, Complete, isDistinct = false))
    val window = AttributeReference("w", WindowFunction.windowType(TimestampType), nullable = false)()
    val results = aggregates.map(_.resultAttribute)
    val definition = WindowDefinition(WindowKind.Sliding, windowSeconds * 1000000L)
    val layout = WindowStateLayout(2, Seq(k), DataTypeUtils.fromAttributes(
      aggregates.flatMap(_.aggregateFunction.aggBufferAttributes)))
    val sqlConf = new SQLConf
    // Further settings (the operator's, RocksDB's) as JVM system properties: -Dspark.sql.slidingWindow.state.chunkRows=32
    sys.props.foreach { case (key, value) => if (key.startsWith("spark.sql.")) sqlConf.setConfString(key, value) }
    val recordCacheBytes = RecordCache.maxBytes(sqlConf)
    val perBatch = sys.props.get("bench.perBatch").contains("true")
    val keyBytesOrder = sqlConf.getConfString(KeyBytesOrder.enabledKey, "true").toBoolean
    def groupOrder(k: Long) = if (keyBytesOrder) KeyBytesOrder.unsignedBytes(k) else k
    val project = UnsafeProjection.create(input.map(_.dataType).toArray)
    val fill = ((windowSeconds * 1000000L + delay) / advance + 2).toInt
    val cycle = math.max(10, ((windowSeconds * 1000000L + delay + advance - 1) / advance).toInt)

    val hadoopConf = new Configuration
    hadoopConf.set("sql.streaming.runId", java.util.UUID.randomUUID.toString) // StreamExecution.RUN_ID_KEY
    for (mode <- modes; append = mode != "update"; round <- 1 to rounds) {
      val limits = RecordLimits(sqlConf, append)
      val dir = Files.createTempDirectory("swa-operator-bench").toFile
      val provider = new RocksDBStateStoreProvider
      provider.init(StateStoreId(dir.getAbsolutePath, 0, 0), layout.keySchema, layout.valueSchema,
        layout.keyEncoding(ordered = true), true,
        new StateStoreConf(WindowStateStoreWriter.storeSettings(sqlConf, providerCountsRows = false)), hadoopConf)
      var maxTime = Long.MinValue
      var late: Option[Long] = None
      var nanos = 0L
      var commitNanos = 0L
      var (read, written, removed) = (0L, 0L, 0L)
      for (batch <- 0 until fill + cycle) {
        val eviction = if (maxTime == Long.MinValue) None else Some(maxTime - delay)
        val rows = new Array[InternalRow](groups * rowsPerGroup)
        var n = 0
        for (g <- 0 until groups; i <- 0 until rowsPerGroup) {
          val value = (batch.toLong * groups + g) * rowsPerGroup + i
          val t = start + batch * advance + (value * 7919000L) % advance
          rows(n) = project(InternalRow(g.toLong, t, value)).copy()
          maxTime = math.max(maxTime, t)
          n += 1
        }
        java.util.Arrays.sort(rows.asInstanceOf[Array[AnyRef]], (a: AnyRef, b: AnyRef) => {
          val (x, y) = (a.asInstanceOf[UnsafeRow], b.asInstanceOf[UnsafeRow])
          val c = java.lang.Long.compare(groupOrder(x.getLong(0)), groupOrder(y.getLong(0)))
          if (c != 0) c else java.lang.Long.compare(x.getLong(1), y.getLong(1))
        })
        val began = System.nanoTime()
        val store = provider.getStore(batch)
        val state = WindowState(store, layout, StateArrangement(timeIndex = true, orderedRows = true), eviction,
          limits, recordCacheBytes)
        val buffers = new AggregateBuffers(aggregates, input)
        val writer = new WindowRowWriter(Seq(k), window, results, k +: window +: results, buffers)
        val processor = StreamingWindowsProcessor(definition, StreamingWindowsContext(state, buffers, writer,
          WindowBufferConf.default, definition.sizeMicros, ts, input, append, late, eviction))
        val out = processor.process(rows.iterator)
        var emitted = 0L
        while (out.hasNext) { out.next(); emitted += 1 }
        val committing = System.nanoTime()
        state.commit()
        val done = state.metrics
        if (perBatch) println(f"micro-batch $batch: ${(System.nanoTime() - began) / 1e6}%.0f ms, state rows read " +
          f"${done.rowsRead}, written ${done.rowsWritten}, removed ${done.rowsRemoved}")
        if (batch >= fill) {
          nanos += System.nanoTime() - began
          commitNanos += System.nanoTime() - committing
          read += done.rowsRead
          written += done.rowsWritten
          removed += done.rowsRemoved
        }
        late = eviction
      }
      provider.close()
      org.apache.commons.io.FileUtils.deleteQuietly(dir)
      val inputRows = cycle.toDouble * groups * rowsPerGroup
      println(f"round $round: $groups%d groups x $rowsPerGroup%d rows, ${windowSeconds}%d s window, " +
        f"${if (append) "append" else "update"}: ${nanos / 1e6 / cycle}%.1f ms per micro-batch " +
        f"(${nanos / inputRows}%.0f ns per row, commit ${commitNanos / 1e6 / cycle}%.1f ms) over $cycle%d micro-batches; state rows per input row " +
        f"read ${read / inputRows}%.2f, written ${written / inputRows}%.2f, removed ${removed / inputRows}%.2f")
    }
  }
}
