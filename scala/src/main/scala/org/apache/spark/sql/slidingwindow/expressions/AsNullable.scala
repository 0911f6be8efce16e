package org.apache.spark.sql.slidingwindow.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.DataType

/**
 * `child`'s value, typed as `target`: the same type with nulls allowed in more places (struct
 * fields, array elements, map values), and nullable. Its value is the child's, unchanged, as
 * Spark's `KnownNullable` does for the nullability alone. Should a rewrite of the child allow
 * nulls where `target` does not, its type is the child's.
 *
 * [[org.apache.spark.sql.slidingwindow.analysis.PlanWindowedAggregates]] gives a column the type
 * of the Aggregate column it replaces, which Spark 4.3 makes nullable throughout on a stream.
 */
case class AsNullable(child: Expression, target: DataType) extends UnaryExpression {

  override lazy val dataType: DataType =
    if (DataType.equalsIgnoreCompatibleNullability(child.dataType, target)) target else child.dataType
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
