package org.apache.spark.sql.slidingwindow.expressions

import org.apache.spark.sql.catalyst.trees.TreePattern.AGGREGATE
import org.apache.spark.sql.catalyst.trees.TreePatternBits

/**
 * Which plans the rules of this extension can skip, cheaply: they run on every query of a
 * session that loads the extension, most of which use no window function.
 *
 * Spark's own rules prune on tree-pattern bits (`TreePattern.TIME_WINDOW` for `window()`), which
 * every node computes once from its expressions and children. `TreePattern` is a closed Scala
 * `Enumeration`, so a window function cannot have a bit of its own, and declaring one of Spark's
 * (`TIME_WINDOW`, `SESSION_WINDOW`) would make Spark's rules visit our plans. So:
 *  - the operator bit `AGGREGATE`, for what happens only in an `Aggregate` (a window function is
 *    rewritten only in an aggregation's grouping list); a subquery's bits are its plan's, so it
 *    covers subqueries too;
 *  - a flag of our own for what can be anywhere (a window function left in a WHERE clause, a
 *    [[org.apache.spark.sql.slidingwindow.logical.WindowedAggregate]] that the optimizer may
 *    have moved): set when the first window function, window grouping or windowed aggregate of
 *    this JVM is created. Until then no plan can hold one, and every rule returns at once.
 */
object WindowPruning {
  @volatile private var windowsCreated = false

  /** Called when a window function or one of the nodes made from it is created. */
  private[slidingwindow] def created(): Unit = if (!windowsCreated) windowsCreated = true

  /** Whether any plan of this JVM may hold a window function or a node made from one. */
  def mayHoldWindows: Boolean = windowsCreated

  /** Whether `plan` may hold an aggregation grouped by a window function. */
  def mayGroupByWindow(plan: TreePatternBits): Boolean =
    windowsCreated && plan.containsPattern(AGGREGATE)
}
