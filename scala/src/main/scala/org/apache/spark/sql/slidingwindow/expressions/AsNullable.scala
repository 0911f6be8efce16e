package org.apache.spark.sql.slidingwindow.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.DataType

/**
 * `child`'s value, typed as `dataType`: the same type with nulls allowed in more places (struct
 * fields, array elements, map values), and nullable. Its value is the child's, unchanged, as
 * Spark's `KnownNullable` does for the nullability alone.
 *
 * [[org.apache.spark.sql.slidingwindow.analysis.PlanWindowedAggregates]] gives a column the type
 * of the Aggregate column it replaces, which Spark 4.3 makes nullable throughout on a stream.
 */
case class AsNullable(child: Expression, dataType: DataType) extends UnaryExpression {
  require(DataType.equalsIgnoreCompatibleNullability(child.dataType, dataType),
    s"${child.dataType.catalogString} is not ${dataType.catalogString} with fewer nulls")

  override def nullable: Boolean = true
  // Not folded into a literal, which would take the child's nullability back.
  override def foldable: Boolean = false
  override def prettyName: String = "as_nullable"
  override def sql: String = child.sql
  // Plans print as_nullable(column), not the fields of its type.
  override def flatArguments: Iterator[Any] = Iterator(child)

  override def eval(input: InternalRow): Any = child.eval(input)

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = child.genCode(ctx)

  override protected def withNewChildInternal(newChild: Expression): AsNullable = copy(child = newChild)
}
