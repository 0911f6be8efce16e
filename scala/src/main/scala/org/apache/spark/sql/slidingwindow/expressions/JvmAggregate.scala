package org.apache.spark.sql.slidingwindow.expressions

import org.apache.spark.sql.catalyst.expressions.{Expression, RuntimeReplaceableAggregate}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, AggregateFunction, DeclarativeAggregate, ImperativeAggregate}

/**
 * Aggregates the extension's operators compute: those whose buffers are updated and merged in the
 * JVM. A Python or pandas aggregate (a `pandas_udf` from a Series to a scalar: Spark's `PythonUDAF`,
 * on every supported Spark) is not one; Spark runs it in Python workers, in its own operators.
 */
object JvmAggregate {
  /** Whether buffers of `f` can be updated and merged here (after the optimizer's replacements). */
  def runs(f: AggregateFunction): Boolean = f match {
    case _: DeclarativeAggregate | _: ImperativeAggregate => true
    case r: RuntimeReplaceableAggregate => r.replacement match {
      case replaced: AggregateFunction => runs(replaced)
      case _ => false
    }
    case _ => false
  }

  /** The first aggregate in `e` that does not run in the JVM, if any. */
  def firstNotInJvm(e: Expression): Option[AggregateExpression] = e.collectFirst {
    case ae: AggregateExpression if !runs(ae.aggregateFunction) => ae
  }
}
