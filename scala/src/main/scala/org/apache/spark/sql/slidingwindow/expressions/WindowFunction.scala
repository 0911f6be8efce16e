package org.apache.spark.sql.slidingwindow.expressions

import org.apache.spark.sql.catalyst.expressions.{Expression, Unevaluable}
import org.apache.spark.sql.types.{DataType, StructField, StructType, TimestampNTZType, TimestampType}

/**
 * A window grouping expression, like Spark's `SessionWindow`: it marks "group by this kind of
 * window over this time column" and is never evaluated. The analyzer rule
 * [[org.apache.spark.sql.slidingwindow.analysis.ResolveWindowedAggregates]] replaces it with the
 * window column of a windowed aggregation.
 */
trait WindowFunction extends Expression with Unevaluable {
  WindowPruning.created()

  def kind: WindowKind
  def timeColumn: Expression
  def size: Expression
  /** The column that gives the order rows are applied in, for window kinds that have one. */
  def order: Option[Expression] = None

  override def nullable: Boolean = false

  /** `struct<start, end>` in the type of the time column (TIMESTAMP or TIMESTAMP_NTZ). */
  override def dataType: DataType = WindowFunction.windowType(timeColumn.dataType)

  // The generated column name is the function name, as Spark names `window` and `session_window`.
  override def sql: String = kind.functionName
  override def prettyName: String = kind.functionName
}

object WindowFunction {
  def windowType(timeType: DataType): StructType = {
    val t = timeType match {
      case TimestampNTZType => TimestampNTZType
      case _ => TimestampType
    }
    StructType(Seq(StructField("start", t, nullable = false), StructField("end", t, nullable = false)))
  }
}

/** `sliding_window(time, size)`: the KIP-450 sliding windows of `size` over `time`. */
case class SlidingWindow(timeColumn: Expression, size: Expression) extends WindowFunction {
  override def kind: WindowKind = WindowKind.Sliding
  override def children: Seq[Expression] = Seq(timeColumn, size)
  override protected def withNewChildrenInternal(
      newChildren: IndexedSeq[Expression]): SlidingWindow =
    copy(timeColumn = newChildren(0), size = newChildren(1))
}

/**
 * `batch_window(time, size[, order])`: tumbling windows of `size` chosen by the group's stream
 * time (the largest time seen so far), with rows applied in `order` when given, else by time.
 */
case class BatchWindow(timeColumn: Expression, size: Expression, override val order: Option[Expression])
  extends WindowFunction {
  override def kind: WindowKind = WindowKind.Batch
  override def children: Seq[Expression] = Seq(timeColumn, size) ++ order
  override protected def withNewChildrenInternal(
      newChildren: IndexedSeq[Expression]): BatchWindow =
    copy(timeColumn = newChildren(0), size = newChildren(1), order = newChildren.lift(2))
}
