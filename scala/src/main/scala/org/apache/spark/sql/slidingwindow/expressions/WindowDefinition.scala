package org.apache.spark.sql.slidingwindow.expressions

import org.apache.spark.sql.catalyst.expressions.{Expression, NamedExpression}
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.types.{TimestampNTZType, TimestampType}

/** What a validated window function asks for: its kind and its size in microseconds. */
case class WindowDefinition(kind: WindowKind, sizeMicros: Long) {
  def sizeString: String = WindowSize.format(sizeMicros)
  override def toString: String = s"$kind, size=$sizeString"
}

object WindowDefinition {
  /** Validates the arguments of a resolved window function (SPEC section 4). */
  def of(w: WindowFunction): WindowDefinition = {
    val fn = w.kind.functionName
    w.timeColumn.dataType match {
      case TimestampType | TimestampNTZType =>
      case other =>
        val name = w.timeColumn match {
          case n: NamedExpression => s"`${n.name}`"
          case e: Expression => e.sql
        }
        WindowErrors.invalidTimeColumn(fn, name, other.sql)
    }
    WindowDefinition(w.kind, WindowSize.toMicros(fn, w.size))
  }
}
