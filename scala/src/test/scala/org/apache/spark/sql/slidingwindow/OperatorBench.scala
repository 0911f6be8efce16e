package org.apache.spark.sql.slidingwindow

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Literal, UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, Complete, Count, Max, MaxBy, Sum}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, WindowBufferConf}
import org.apache.spark.sql.slidingwindow.execution.{WindowRowWriter, WindowedAggregationIterator}
import org.apache.spark.sql.slidingwindow.expressions.{WindowDefinition, WindowFunction, WindowKind}
import org.apache.spark.sql.types.{LongType, TimestampType}

/**
 * The batch operator alone, without Spark's shuffle and sort: rows already sorted by (k, ts)
 * go through WindowedAggregationIterator, as in the benchmark of docs/performance.md (count,
 * sum, max, max_by; about one row per millisecond per group). For profiling and tuning the
 * operator, not a test:
 *
 *   java -cp <test jar>:<main jar>:<every jar of pyspark> org.apache.spark.sql.slidingwindow.OperatorBench [rows] [rows per window]
 */
object OperatorBench {
  def main(args: Array[String]): Unit = {
    val rows = if (args.length > 0) args(0).toInt else 2000000
    val perWindow = if (args.length > 1) args(1).toLong else 100L
    val groups = 100
    val k = AttributeReference("k", LongType, nullable = false)()
    val ts = AttributeReference("ts", TimestampType, nullable = false)()
    val v = AttributeReference("v", LongType, nullable = false)()
    val input = Seq(k, ts, v)
    val aggregates = Seq(Count(Seq(Literal(1))), Sum(v), Max(v), MaxBy(v, ts))
      .map(AggregateExpression(_, Complete, isDistinct = false))
    val window = AttributeReference("w", WindowFunction.windowType(TimestampType), nullable = false)()
    val results = aggregates.map(_.resultAttribute)

    // Sorted input: group by group, times ascending with some equal times.
    val project = UnsafeProjection.create(input.map(_.dataType).toArray)
    val perGroup = rows / groups
    val sorted = new Array[InternalRow](rows)
    var n = 0
    for (g <- 0 until groups) {
      val rnd = new scala.util.Random(g)
      val times = Array.tabulate(perGroup)(i => i * 1000L + rnd.nextInt(3) * 1000L).sorted
      times.foreach { t =>
        sorted(n) = project(InternalRow(g.toLong, t, (t * 7919 + g) % 1000)).copy()
        n += 1
      }
    }
    val definition = WindowDefinition(WindowKind.Sliding, perWindow * 1000L)
    for (round <- 1 to 12) {
      val start = System.nanoTime()
      val buffers = new AggregateBuffers(aggregates, input)
      val writer = new WindowRowWriter(Seq(k), window, results, (k +: window +: results), buffers)
      val out = new WindowedAggregationIterator(definition, Seq(k), ts, input, buffers,
        WindowBufferConf.default, writer, sorted.iterator, new SQLMetric("sum"), new SQLMetric("sum"),
        new SQLMetric("sum"), new SQLMetric("size"))
      var windows = 0L
      var check = 0L
      while (out.hasNext) { check += out.next().getLong(2); windows += 1 }
      val seconds = (System.nanoTime() - start) / 1e9
      println(f"round $round: $rows%d rows, $windows%d windows in $seconds%.3f s " +
        f"(${seconds * 1e9 / rows}%.0f ns per row), check $check")
    }
  }
}
