package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, Literal, NamedExpression}
import org.apache.spark.sql.types.{IntegerType, StructField}

/**
 * How streaming trailing windows keep their state: one class per state format version, chosen
 * once from the version the query's checkpoint records (docs/state-format.md, section "Trailing
 * windows"):
 *  - 1 ([[TrailingRowsLayout]]): every kept input row, which each micro-batch reads again;
 *  - 2 ([[TrailingFramesLayout]]): the rows not emitted yet, and each group's frames (their
 *    Two-Stacks queues of partial aggregates), which a micro-batch resumes;
 *  - 3 ([[TrailingPartsLayout]]): as 2, with the rows not emitted yet in parts, one per group,
 *    second and micro-batch.
 * A stream without partition keys has one group, `__group` = 0.
 */
abstract class TrailingStateLayout(val version: Int, partitionSpec: Seq[Expression], val input: Seq[Attribute])
  extends StateStoreSchema {

  protected val groupFields: Seq[StructField] =
    if (partitionSpec.isEmpty) Seq(StructField("__group", IntegerType, nullable = false))
    else partitionSpec.zipWithIndex.map {
      case (n: NamedExpression, _) => StructField(n.name, n.dataType, n.nullable)
      case (e, i) => StructField(s"__key$i", e.dataType, e.nullable)
    }
  val groupWidth: Int = groupFields.length

  /** Whether the stream has no partition keys (one group). */
  val keyless: Boolean = partitionSpec.isEmpty

  protected def groupExpressions: Seq[Expression] = if (partitionSpec.isEmpty) Seq(Literal(0)) else partitionSpec

  override val dataFamily: String = StateStoreApi.defaultFamily
}

object TrailingStateLayout {
  /** The state format versions of trailing windows this release reads and writes. */
  val supported: Seq[Int] = Seq(1, 2, 3)

  /** The version of new queries. */
  val current: Int = 3

  /** Internal, for tests and the fixtures of every version: the state format of new queries' trailing windows. */
  val newQueriesKey = "spark.sql.slidingWindow.trailingWindows.state.formatVersion"

  def forNewQuery(conf: org.apache.spark.sql.internal.SQLConf): Int = {
    val version = conf.getConfString(newQueriesKey, current.toString).toInt
    require(supported.contains(version), s"$newQueriesKey must be one of ${supported.mkString(", ")}, got $version")
    version
  }

  def apply(version: Int, partitionSpec: Seq[Expression], input: Seq[Attribute]): TrailingStateLayout =
    version match {
      case 1 => new TrailingRowsLayout(partitionSpec, input)
      case 2 => new TrailingFramesLayout(partitionSpec, input)
      case 3 => new TrailingPartsLayout(partitionSpec, input)
      case _ => throw new IllegalArgumentException(s"unknown trailing windows state format version $version")
    }
}
