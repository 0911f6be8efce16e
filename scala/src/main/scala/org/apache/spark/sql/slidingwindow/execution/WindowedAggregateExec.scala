package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, Expression, SortOrder}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.plans.physical.{AllTuples, ClusteredDistribution, Distribution, Partitioning, UnknownPartitioning}
import org.apache.spark.sql.catalyst.util.truncatedString
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, WindowBufferConf}
import org.apache.spark.sql.slidingwindow.expressions.WindowDefinition
import org.apache.spark.sql.slidingwindow.logical.WindowedAggregate

/**
 * The physical windowed aggregation of a batch query: its child is clustered by the keys and
 * sorted by (keys, time); every window of every group is produced in one pass, each with O(1)
 * amortized merges of Spark aggregation buffers.
 */
case class WindowedAggregateExec(
    definition: WindowDefinition,
    keys: Seq[Attribute],
    time: Attribute,
    order: Option[Attribute],
    window: Attribute,
    aggregates: Seq[AggregateExpression],
    child: SparkPlan) extends UnaryExecNode {

  override def nodeName: String = WindowedAggregate.nodeName(definition)

  override def output: Seq[Attribute] = (keys :+ window) ++ aggregates.map(_.resultAttribute)

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numInputRows" -> SQLMetrics.createMetric(sparkContext, "number of input rows"),
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numGroups" -> SQLMetrics.createMetric(sparkContext, "number of groups"))

  override def requiredChildDistribution: Seq[Distribution] =
    if (keys.isEmpty) AllTuples :: Nil else ClusteredDistribution(keys) :: Nil

  override def requiredChildOrdering: Seq[Seq[SortOrder]] =
    Seq(WindowedAggregate.inputOrdering(keys, time, order))

  override def outputPartitioning: Partitioning = child.outputPartitioning match {
    case e: Expression if !e.references.subsetOf(outputSet) =>
      UnknownPartitioning(child.outputPartitioning.numPartitions)
    case p => p
  }

  override def outputOrdering: Seq[SortOrder] = keys.map(SortOrder(_, Ascending))

  override protected def doExecute(): RDD[InternalRow] = {
    val numInputRows = longMetric("numInputRows")
    val numOutputRows = longMetric("numOutputRows")
    val numGroups = longMetric("numGroups")
    val inputAttributes = child.output
    val (definition, keys, time, aggregates, out) =
      (this.definition, this.keys, this.time, this.aggregates, this.output)
    val bufferConf = WindowBufferConf(conf)
    child.execute().mapPartitionsInternal { rows =>
      new WindowedAggregationIterator(definition, keys, time, inputAttributes,
        new AggregateBuffers(aggregates, inputAttributes), bufferConf, out, rows,
        numInputRows, numOutputRows, numGroups)
    }
  }

  override def simpleString(maxFields: Int): String = {
    val outString = truncatedString(output, "[", ", ", "]", maxFields)
    s"$nodeName(${WindowedAggregate.describe(definition, keys, time, order, aggregates, maxFields)}, " +
      s"output=$outString)"
  }

  override protected def withNewChildInternal(newChild: SparkPlan): WindowedAggregateExec =
    copy(child = newChild)
}
