package org.apache.spark.sql.slidingwindow.expressions

import org.apache.spark.sql.catalyst.expressions.{Expression, NamedExpression, RowOrdering}
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.types.{TimestampNTZType, TimestampType}

/** What a validated window function asks for: its kind and its size in microseconds. */
case class WindowDefinition(kind: WindowKind, sizeMicros: Long) {
  def sizeString: String = WindowSize.format(sizeMicros)
  override def toString: String = s"$kind, size=$sizeString"
}

object WindowDefinition {
  /** Validates the arguments of a resolved window function (docs/contract.md, "Bad input"). */
  def of(w: WindowFunction): WindowDefinition = {
    val fn = w.kind.functionName
    w.timeColumn.dataType match {
      case TimestampType | TimestampNTZType =>
      case other => WindowErrors.invalidTimeColumn(fn, shown(w.timeColumn), other.sql)
    }
    w.order.foreach { o =>
      if (!RowOrdering.isOrderable(o.dataType)) {
        WindowErrors.invalidOrderColumn(fn, shown(o), o.dataType.sql)
      }
    }
    WindowDefinition(w.kind, WindowSize.toMicros(fn, w.size))
  }

  private def shown(e: Expression): String = e match {
    case n: NamedExpression => s"`${n.name}`"
    case other => other.sql
  }
}
