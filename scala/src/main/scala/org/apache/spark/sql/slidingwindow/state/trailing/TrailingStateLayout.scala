package org.apache.spark.sql.slidingwindow.state
package trailing

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, BoundReference, Expression, GenericInternalRow, JoinedRow, Literal, NamedExpression, SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.slidingwindow.codegen.ProjectionPool
import org.apache.spark.sql.types.{BinaryType, IntegerType, LongType, StructField, StructType}

/**
 * The state of streaming trailing windows (docs/state-format.md, section "Trailing windows"):
 * keys `(__kind, __bucket, partition keys..., __time, __seq)`, prefix-encoded on
 * `(__kind, __bucket)`, so that one prefix scan reads every row of a kind and bucket; values
 * `(__bytes)`. The kinds ([[TrailingRowKind]]):
 *  - Pending, at (0, seq): a part, the rows of one group and bucket that one micro-batch kept
 *    ([[PendingParts]]), in `__bytes`, in the bucket of their second
 *    ([[TrailingStateLayout.bucketOf]]): a micro-batch reads the buckets its watermark makes rows
 *    due in, not every row waiting;
 *  - Frames, at (0, 0): a group's frames ([[FramesRows]]), in `__bytes`;
 *  - Chunk, at (stack, chunk number): a run of older elements of one of those frames' stacks, in
 *    `__bytes`;
 *  (the kinds but Pending in bucket 0)
 *  - Summary, one row with null partition keys: the store's row count and when the state may next
 *    hold a group that no later row's frames reach ([[TrailingSummary]]), in `__bytes`.
 * The partition keys are nullable in the schema, for the Summary row. A stream without partition
 * keys has one group, `__group` = 0.
 */
final class TrailingStateLayout(partitionSpec: Seq[Expression], val input: Seq[Attribute])
  extends StateStoreSchema {
  import TrailingStateLayout._

  private val groupFields: Seq[StructField] =
    if (partitionSpec.isEmpty) Seq(StructField("__group", IntegerType, nullable = false))
    else partitionSpec.zipWithIndex.map {
      case (n: NamedExpression, _) => StructField(n.name, n.dataType, n.nullable)
      case (e, i) => StructField(s"__key$i", e.dataType, e.nullable)
    }
  val groupWidth: Int = groupFields.length

  /** The key schema of the time index through which groups expire (a time index arrangement). */
  val indexKeySchema: StructType = TimeIndex.keySchema(groupFields.map(_.copy(nullable = true)))

  /** Whether the stream has no partition keys (one group). */
  val keyless: Boolean = partitionSpec.isEmpty

  private def groupExpressions: Seq[Expression] = if (partitionSpec.isEmpty) Seq(Literal(0)) else partitionSpec

  override val dataFamily: String = StateStoreApi.defaultFamily

  private val kindFields = Seq(StructField("__kind", IntegerType, nullable = false),
    StructField("__bucket", LongType, nullable = false))
  private val timeFields = Seq(StructField("__time", LongType, nullable = false),
    StructField("__seq", LongType, nullable = false))
  override val keySchema: StructType =
    StructType(kindFields ++ groupFields.map(_.copy(nullable = true)) ++ timeFields)
  override val valueSchema: StructType = StructType(Seq(StructField("__bytes", BinaryType, nullable = true)))
  override def keyEncoding(ordered: Boolean): StateStoreApi.KeyEncoding = StateStoreApi.prefixKeys(keySchema, 2)

  val timeOrdinal: Int = 2 + groupWidth
  val seqOrdinal: Int = 3 + groupWidth
  val numInputFields: Int = input.length

  /**
   * The Pending key of an input row, at its time and `__seq`: over the input row followed by its
   * `__seq`, a LongType column at ordinal `input.length`; `time` is the ORDER BY expression over
   * the input. [[PendingParts]] reads the row's time and `__seq` from it, then keys its part.
   */
  def keyOfInput(time: Expression): UnsafeProjection =
    ProjectionPool.unsafe(Seq(Literal(TrailingRowKind.Pending.id), Literal(0L)) ++ groupExpressions ++
      Seq(time, BoundReference(input.length, LongType, nullable = false)),
      input :+ AttributeReference("__seq", LongType, nullable = false)())

  /** The group of a key (its partition keys, or `__group`). */
  def groupOfKey(): UnsafeProjection =
    ProjectionPool.unsafe(groupFields.indices.map(i => BoundReference(i + 2, groupFields(i).dataType, nullable = true)))

  /** Builds keys and byte values; one per task (reused rows). */
  def rows(): TrailingStateLayout.Rows = new TrailingStateLayout.Rows(this)

  private[state] def keyProjection: UnsafeProjection =
    ProjectionPool.unsafe(keySchema.fields.toSeq.zipWithIndex.map { case (f, i) => BoundReference(i, f.dataType, f.nullable) })
  private[state] def bytesProjection: UnsafeProjection =
    ProjectionPool.unsafe(Seq(BoundReference(0, BinaryType, nullable = true)))
  /** The state group of a row's partition keys (a keyless stream's is `__group` = 0). */
  private[state] val keylessGroup: UnsafeRow = {
    val row = new UnsafeRow(1)
    row.pointTo(new Array[Byte](16), 16)
    row.setInt(0, 0)
    row
  }
}

object TrailingStateLayout {
  /**
   * The state format version of trailing windows, which the operator's record holds; the only one
   * this release reads and writes, and that of new queries.
   */
  val current: Int = 1

  /** The state format versions of trailing windows this release reads and writes. */
  val supported: Seq[Int] = Seq(current)

  /** The width of a bucket of Pending rows: a second, in microseconds. */
  val BucketMicros: Long = 1000000L

  /** The ordinal of `__bucket` in a key. */
  val BucketOrdinal: Int = 1

  /** The bucket of a Pending row at `time`: the second of it, [bucket, bucket + 1) seconds. */
  def bucketOf(time: Long): Long = Math.floorDiv(time, BucketMicros)

  /** The earliest time of `bucket`. */
  def firstTimeOf(bucket: Long): Long =
    if (bucket >= Long.MaxValue / BucketMicros) Long.MaxValue
    else if (bucket <= Long.MinValue / BucketMicros) Long.MinValue
    else bucket * BucketMicros

  /** Keys and `__bytes` values of one task: each result is valid until the next call. */
  final class Rows(layout: TrailingStateLayout) {
    private val kind = new SpecificInternalRow(Seq(IntegerType, LongType))
    private val times = new SpecificInternalRow(Seq(LongType, LongType))
    private val nullGroup = new GenericInternalRow(layout.groupWidth)
    private val joined = new JoinedRow
    private val withTimes = new JoinedRow
    private val keyOf = layout.keyProjection
    private val bytesRow = new GenericInternalRow(1)
    private val valueOf = layout.bytesProjection
    private val prefix = {
      val row = new UnsafeRow(2)
      row.pointTo(new Array[Byte](24), 24)
      row
    }

    /** The state group of the partition keys of a group's rows. */
    def group(partitionKeys: UnsafeRow): UnsafeRow = if (layout.keyless) layout.keylessGroup else partitionKeys

    /** The key of a row of kind `k` but Pending (bucket 0). */
    def key(k: TrailingRowKind, group: InternalRow, time: Long, seq: Long): UnsafeRow = {
      kind.setInt(0, k.id)
      kind.setLong(1, 0L)
      times.setLong(0, time)
      times.setLong(1, seq)
      keyOf(withTimes(joined(kind, if (group == null) nullGroup else group), times))
    }

    /** The key of the one Summary row. */
    def summaryKey: UnsafeRow = key(TrailingRowKind.Summary, null, 0L, 0L)

    /** The prefix a scan of every row of kind `k` in `bucket` reads. */
    def kindPrefix(k: TrailingRowKind, bucket: Long): UnsafeRow = {
      prefix.setInt(0, k.id)
      prefix.setLong(1, bucket)
      prefix
    }

    /** The `__bytes` of a value. */
    def bytesOf(value: UnsafeRow): Array[Byte] = value.getBinary(0)

    def bytesValue(bytes: Array[Byte]): UnsafeRow = {
      bytesRow.update(0, bytes)
      valueOf(bytesRow)
    }
  }
}
