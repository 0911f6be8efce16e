package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Expression, NamedExpression, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.{AllTuples, ClusteredDistribution, Distribution, Partitioning}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

/**
 * Spark's `Window` operator for trailing windows (`agg OVER (PARTITION BY ... ORDER BY time RANGE
 * BETWEEN size PRECEDING AND CURRENT ROW)`) in a batch query: the same input (clustered by the
 * partition keys, sorted by them and the time), the same output (every input row, then one column
 * per window expression), but every size's frames slide with O(1) amortized merges per row
 * instead of recomputing each frame from its rows. Frames of several sizes share one pass.
 */
case class TrailingWindowExec(
    windowExpressions: Seq[NamedExpression],
    partitionSpec: Seq[Expression],
    orderSpec: Seq[SortOrder],
    child: SparkPlan) extends BaseTrailingWindowExec {

  override def nodeName: String = "TrailingWindow"

  override def requiredChildDistribution: Seq[Distribution] =
    if (partitionSpec.isEmpty) AllTuples :: Nil else ClusteredDistribution(partitionSpec) :: Nil

  override def requiredChildOrdering: Seq[Seq[SortOrder]] =
    Seq(partitionSpec.map(SortOrder(_, Ascending)) ++ orderSpec)

  override def outputOrdering: Seq[SortOrder] = child.outputOrdering

  override def outputPartitioning: Partitioning = child.outputPartitioning

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numGroups" -> SQLMetrics.createMetric(sparkContext, "number of partitions of the window"))

  override protected def doExecute(): RDD[InternalRow] = {
    val windows = trailingWindows(longMetric("numGroups"), longMetric("numOutputRows"))
    child.execute().mapPartitionsInternal(rows => windows(rows))
  }

  override protected def withNewChildInternal(newChild: SparkPlan): TrailingWindowExec =
    copy(child = newChild)
}
