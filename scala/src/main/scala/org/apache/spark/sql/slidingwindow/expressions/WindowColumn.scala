package org.apache.spark.sql.slidingwindow.expressions

import org.apache.spark.sql.catalyst.expressions.{BinaryExpression, Expression, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{DataType, StructType}

/**
 * The window column of an output row, `struct(start, end)`, from the window's two bounds: what
 * `CreateNamedStruct` of them gives. The generated code of that builds a generic row and boxes
 * both bounds, for every window (an update-mode stream emits dozens of windows per row); this
 * one sets them in an `UnsafeRow` of its own, which the projection that evaluates it copies
 * into its output, as it does any struct.
 *
 * For the operators' output projections only: the generated code returns the same row each time
 * (evaluated alone, a new one), valid until the next evaluation.
 */
case class WindowColumn(start: Expression, end: Expression, dataType: StructType) extends BinaryExpression {
  require(dataType.length == 2, "a window column has two fields: start and end")

  override def left: Expression = start
  override def right: Expression = end
  override def nullable: Boolean = false
  override def prettyName: String = "window_column"

  override protected def nullSafeEval(start: Any, end: Any): Any = {
    val row = new UnsafeRow(2)
    row.pointTo(new Array[Byte](WindowColumn.RowBytes), WindowColumn.RowBytes)
    row.setLong(0, start.asInstanceOf[Long])
    row.setLong(1, end.asInstanceOf[Long])
    row
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val rowClass = classOf[UnsafeRow].getName
    val row = ctx.addMutableState(rowClass, "windowColumn",
      v => s"$v = new $rowClass(2); $v.pointTo(new byte[${WindowColumn.RowBytes}], ${WindowColumn.RowBytes});")
    nullSafeCodeGen(ctx, ev, (s, e) => s"$row.setLong(0, $s); $row.setLong(1, $e); ${ev.value} = $row;")
  }

  override protected def withNewChildrenInternal(newLeft: Expression, newRight: Expression): WindowColumn =
    copy(start = newLeft, end = newRight)
}

object WindowColumn {
  /** An UnsafeRow of two longs: one word of null bits, two of values. */
  private val RowBytes = 24
}
