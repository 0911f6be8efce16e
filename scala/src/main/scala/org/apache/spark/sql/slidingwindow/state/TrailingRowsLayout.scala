package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, BoundReference, Expression, UnsafeProjection}
import org.apache.spark.sql.slidingwindow.codegen.ProjectionPool
import org.apache.spark.sql.types.{LongType, StructField, StructType}

/**
 * State format 1 of streaming trailing windows: one state row per input row kept, keyed
 * `(partition keys..., __time, __seq)`, whose value is the input row itself. `__seq` tells apart
 * the rows of a group at one time: the micro-batch id in its high 32 bits, the row's place in the
 * task's input in the low ones, so that a micro-batch run again writes the same keys. A group's
 * rows are read by prefix scan on its keys.
 */
final class TrailingRowsLayout(partitionSpec: Seq[Expression], input: Seq[Attribute])
  extends TrailingStateLayout(1, partitionSpec, input) {

  override val keySchema: StructType = StructType(groupFields ++ Seq(
    StructField("__time", LongType, nullable = false), StructField("__seq", LongType, nullable = false)))
  override val valueSchema: StructType = StructType(input.map(a => StructField(a.name, a.dataType, a.nullable)))
  override def keyEncoding(ordered: Boolean): StateStoreApi.KeyEncoding = StateStoreApi.prefixKeys(keySchema, groupWidth)

  val timeOrdinal: Int = groupWidth
  val seqOrdinal: Int = groupWidth + 1

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
