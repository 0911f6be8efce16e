package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, NamedExpression, SortOrder}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.plans.physical.{AllTuples, ClusteredDistribution, Distribution, Partitioning, UnknownPartitioning}
import org.apache.spark.sql.catalyst.util.truncatedString
import org.apache.spark.sql.execution.{ExplainUtils, UnaryExecNode}
import org.apache.spark.sql.slidingwindow.expressions.WindowDefinition
import org.apache.spark.sql.slidingwindow.logical.WindowedAggregate

/**
 * What the batch and the streaming windowed aggregation have in common, as Spark's
 * `BaseAggregateExec` is for its aggregations: the fields of the logical node, the output, the
 * input they need (clustered by the keys, sorted by keys, `order`, time) and how plans print
 * them. `simpleString` is the one-line form of `explain()`; `verboseStringWithOperatorId` the
 * block of `EXPLAIN FORMATTED`; each operator adds its own details to both.
 */
trait BaseWindowedAggregateExec extends UnaryExecNode {
  def definition: WindowDefinition
  def keys: Seq[Attribute]
  def time: Attribute
  def order: Option[Attribute]
  def window: Attribute
  def aggregates: Seq[AggregateExpression]
  def resultExpressions: Seq[NamedExpression]

  override def nodeName: String = WindowedAggregate.nodeName(definition)

  override def output: Seq[Attribute] = resultExpressions.map(_.toAttribute)

  override def requiredChildDistribution: Seq[Distribution] =
    if (keys.isEmpty) AllTuples :: Nil else ClusteredDistribution(keys) :: Nil

  override def requiredChildOrdering: Seq[Seq[SortOrder]] =
    Seq(WindowedAggregate.inputOrdering(keys, time, order))

  // Every output row of a group is where its input rows were.
  override def outputPartitioning: Partitioning = child.outputPartitioning match {
    case e: Expression if !e.references.subsetOf(outputSet) =>
      UnknownPartitioning(child.outputPartitioning.numPartitions)
    case p => p
  }

  /**
   * What an operator adds to the plan strings: (name in `explain()`'s line, label in
   * `EXPLAIN FORMATTED`, value).
   */
  protected def details: Seq[(String, String, String)] = Nil

  override def simpleString(maxFields: Int): String = {
    val fields = WindowedAggregate.describe(definition, keys, time, order, aggregates, maxFields) +:
      (("output", "", truncatedString(output, "[", ", ", "]", maxFields)) +: details).map {
        case (name, _, value) => s"$name=$value"
      }
    s"$nodeName(${fields.mkString(", ")})"
  }

  override def verboseStringWithOperatorId(): String = {
    val window = s"${definition.kind.functionName}($time, '${definition.sizeString}'" +
      order.map(o => s", $o").getOrElse("") + ")"
    val lines = Seq(
      ExplainUtils.generateFieldString("Input", child.output),
      ExplainUtils.generateFieldString("Window", window),
      ExplainUtils.generateFieldString("Keys", keys),
      ExplainUtils.generateFieldString("Functions", aggregates),
      ExplainUtils.generateFieldString("Results", resultExpressions)) ++
      details.map { case (_, label, value) => ExplainUtils.generateFieldString(label, value) }
    (formattedNodeName +: lines).mkString("\n", "\n", "\n")
  }
}
