package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, BoundReference, Expression, Literal, NamedExpression, UnsafeProjection}
import org.apache.spark.sql.slidingwindow.codegen.ProjectionPool
import org.apache.spark.sql.types.{IntegerType, LongType, StructField, StructType}

/**
 * How streaming trailing windows keep their state, state format 1 (docs/state-format.md,
 * section "Trailing windows"): one state row per input row kept, keyed `(partition keys...,
 * __time, __seq)`, whose value is the input row itself. `__seq` tells apart the rows of a group
 * at one time: the micro-batch id in its high 32 bits, the row's place in the task's input in
 * the low ones, so that a micro-batch run again writes the same keys. A group's rows are read by
 * prefix scan on its keys. A stream without partition keys has one group, `__group` = 0.
 */
final class TrailingStateLayout(val version: Int, partitionSpec: Seq[Expression], input: Seq[Attribute])
  extends StateStoreSchema {

  private val groupFields: Seq[StructField] =
    if (partitionSpec.isEmpty) Seq(StructField("__group", IntegerType, nullable = false))
    else partitionSpec.zipWithIndex.map {
      case (n: NamedExpression, _) => StructField(n.name, n.dataType, n.nullable)
      case (e, i) => StructField(s"__key$i", e.dataType, e.nullable)
    }
  val groupWidth: Int = groupFields.length

  override val keySchema: StructType = StructType(groupFields ++ Seq(
    StructField("__time", LongType, nullable = false), StructField("__seq", LongType, nullable = false)))
  override val valueSchema: StructType = StructType(input.map(a => StructField(a.name, a.dataType, a.nullable)))
  override def keyEncoding(ordered: Boolean): StateStoreApi.KeyEncoding = StateStoreApi.prefixKeys(keySchema, groupWidth)
  override val dataFamily: String = StateStoreApi.defaultFamily

  val timeOrdinal: Int = groupWidth
  val seqOrdinal: Int = groupWidth + 1

  private def groupExpressions: Seq[Expression] = if (partitionSpec.isEmpty) Seq(Literal(0)) else partitionSpec

  /**
   * The key of an input row: over the input row followed by its `__seq`, a LongType column at
   * ordinal `input.length`; `time` is the ORDER BY expression over the input (bound or not).
   */
  def keyOfInput(time: Expression): UnsafeProjection =
    ProjectionPool.unsafe(groupExpressions ++ Seq(time, BoundReference(input.length, LongType, nullable = false)),
      input :+ AttributeReference("__seq", LongType, nullable = false)())

  /** The value of an input row: the row itself, as an UnsafeRow. */
  def valueOfInput(): UnsafeProjection = ProjectionPool.unsafe(input, input)

  /** The group of a key: the prefix a prefix scan reads a group by. */
  def groupOfKey(): UnsafeProjection =
    ProjectionPool.unsafe(groupFields.indices.map(i => BoundReference(i, groupFields(i).dataType, groupFields(i).nullable)))
}

object TrailingStateLayout {
  /** The state format versions of trailing windows this release reads and writes. */
  val supported: Seq[Int] = Seq(1)
  val current: Int = 1

  def apply(version: Int, partitionSpec: Seq[Expression], input: Seq[Attribute]): TrailingStateLayout = {
    require(supported.contains(version), s"unknown trailing windows state format version $version")
    new TrailingStateLayout(version, partitionSpec, input)
  }
}
