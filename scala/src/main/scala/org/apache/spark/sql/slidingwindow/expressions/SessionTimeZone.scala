package org.apache.spark.sql.slidingwindow.expressions

import scala.util.Try

import org.apache.spark.sql.catalyst.expressions.{Cast, CurrentTimeZone, Expression, RuntimeReplaceable, TimeZoneAwareExpression}

/**
 * Whether what an expression computes can depend on the session time zone, by rule: it does
 * where its tree holds an expression that evaluates in the zone, a [[TimeZoneAwareExpression]]
 * (a cast only where it needs one, as Spark decides) or `current_timezone()` (the zone itself,
 * which Spark's optimizer puts in its place). The tree is every expression Spark may evaluate
 * for it: the children, the replacement of a runtime-replaceable expression (and aggregate, and
 * each function that inherits its analysis from its replacement: `try_make_timestamp`'s
 * `make_timestamp`), expressions held in other constructor arguments, all taken before constant
 * folding (a constant's value was computed in the zone).
 */
object SessionTimeZone {
  def isRead(e: Expression): Boolean = e match {
    case c: Cast => c.needsTimeZone || c.children.exists(isRead)
    case _: TimeZoneAwareExpression | _: CurrentTimeZone => true
    case other => held(other).exists(isRead)
  }

  /** The expressions `e` holds: its children, its replacement, and its other arguments'. */
  private def held(e: Expression): Seq[Expression] = {
    val replacement = e match {
      case r: RuntimeReplaceable => Try(r.replacement).toOption.toSeq
      case _ => Nil
    }
    val arguments = e.productIterator.flatMap {
      case x: Expression => Seq(x)
      case Some(x: Expression) => Seq(x)
      case xs: Iterable[_] => xs.collect { case x: Expression => x }
      case _ => Nil
    }
    (e.children ++ replacement ++ arguments).distinct
  }
}
