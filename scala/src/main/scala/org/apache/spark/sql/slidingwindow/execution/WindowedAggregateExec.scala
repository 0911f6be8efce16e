package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, NamedExpression, SortOrder}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, WindowBufferConf}
import org.apache.spark.sql.slidingwindow.expressions.WindowDefinition

/**
 * The physical windowed aggregation of a batch query: its child is clustered by the keys and
 * sorted by (keys, time); every window of every group is produced in one pass, each with O(1)
 * amortized merges of Spark aggregation buffers, and written as `resultExpressions` over the
 * keys, the window column and the aggregate results.
 */
case class WindowedAggregateExec(
    definition: WindowDefinition,
    keys: Seq[Attribute],
    time: Attribute,
    order: Option[Attribute],
    window: Attribute,
    aggregates: Seq[AggregateExpression],
    resultExpressions: Seq[NamedExpression],
    child: SparkPlan) extends BaseWindowedAggregateExec {

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numInputRows" -> SQLMetrics.createMetric(sparkContext, "number of input rows"),
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numGroups" -> SQLMetrics.createMetric(sparkContext, "number of groups"),
    "spillSize" -> SQLMetrics.createSizeMetric(sparkContext, "spill size"))

  // Groups come out one after the other, in key order: as far as the keys are in the output.
  override def outputOrdering: Seq[SortOrder] =
    keys.takeWhile(outputSet.contains).map(SortOrder(_, Ascending))

  override protected def doExecute(): RDD[InternalRow] = {
    val numInputRows = longMetric("numInputRows")
    val numOutputRows = longMetric("numOutputRows")
    val numGroups = longMetric("numGroups")
    val spillSize = longMetric("spillSize")
    val inputAttributes = child.output
    val (definition, keys, time, window, aggregates, results) =
      (this.definition, this.keys, this.time, this.window, this.aggregates, this.resultExpressions)
    val bufferConf = WindowBufferConf(conf)
    child.execute().mapPartitionsInternal { rows =>
      val buffers = new AggregateBuffers(aggregates, inputAttributes)
      new WindowedAggregationIterator(definition, keys, time, inputAttributes, buffers, bufferConf,
        new WindowRowWriter(keys, window, aggregates.map(_.resultAttribute), results, buffers), rows,
        numInputRows, numOutputRows, numGroups, spillSize)
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): WindowedAggregateExec =
    copy(child = newChild)
}
