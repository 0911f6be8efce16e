package org.apache.spark.sql.slidingwindow.expressions

import scala.collection.mutable
import scala.util.Try

import org.apache.spark.sql.catalyst.ScalaReflection
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, Cast, EvalMode, ExprId, Expression, Literal, RuntimeReplaceable}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, AggregateMode}
import org.apache.spark.sql.catalyst.util.quoteIfNeeded
import org.apache.spark.sql.types.DataType
import org.apache.spark.unsafe.types.UTF8String

/**
 * What an aggregate column of a windowed aggregation computes, taken from the analyzed query
 * (before the optimizer rewrites it), so that a restarted streaming query can be compared with
 * the one that wrote its state ([[org.apache.spark.sql.slidingwindow.state.WindowOperatorRecord]]).
 *
 *  - `sql`: the aggregate as the user wrote it, for messages (`count_if((v > 0))`, `first(v)`);
 *  - `computes`: every parameter that changes the result: the function's class, each of its
 *    children, each flag its SQL text leaves out (`first(v)` and `first(v, true)` print alike),
 *    DISTINCT and FILTER, and the result type.
 *
 * Like Spark's canonical form, `computes` leaves out what only names or places an expression:
 * expression ids (numbered in order of appearance instead), aggregation buffer offsets and the
 * aggregate mode; columns are named by their names. It also leaves out what the optimizer or
 * the Spark version decides and what only decides whether bad input raises an error, so that a
 * checkpoint restarts in another JVM and on a later Spark: the ANSI evaluation mode (Spark 4
 * made ANSI the default; TRY, as in `try_sum`, is kept), a time zone where the expression does
 * not use one, lambda class names, the replacement a runtime-replaceable expression carries
 * (derived from its arguments, by each Spark its own way), and a constructor argument left at
 * its default value (Spark adds flags with defaults that keep the earlier behaviour).
 */
final case class AggregateIdentity(sql: String, computes: String)

object AggregateIdentity {
  def of(aggregate: AggregateExpression): AggregateIdentity = {
    val unqualified = aggregate.transform { case a: AttributeReference => a.withQualifier(Nil) }
    // Every windowed aggregation, batch ones too, is described here: an expression whose
    // arguments cannot be read this way is described by Spark's canonical form instead.
    val computes = Try(new Renderer().expression(aggregate)).getOrElse(aggregate.canonicalized.toString)
    AggregateIdentity(Try(unqualified.sql).getOrElse(aggregate.toString),
      computes + " RETURNS " + aggregate.dataType.sql)
  }

  /** Arguments that only name or place an expression in a plan, by constructor parameter name. */
  private val placement = Set("resultId", "mutableAggBufferOffset", "inputAggBufferOffset", "qualifier")

  /** Flags that only decide whether bad input fails the query (ANSI mode). */
  private val errorFlags = Set("failOnError", "ansiEnabled")

  private final class Renderer {
    private val ids = mutable.LinkedHashMap[Any, Int]()

    private def ordinal(id: Any): String = s"#${ids.getOrElseUpdate(id, ids.size)}"

    def expression(e: Expression): String = e match {
      case a: Attribute => quoteIfNeeded(a.name)
      case l: Literal => l.sql
      case _ =>
        val names = Try(ScalaReflection.getConstructorParameterNames(e.getClass)).toOption
          .filter(_.length == e.productArity)
          .getOrElse((0 until e.productArity).map(i => s"_$i"))
        val args = names.zip(e.productIterator.toSeq).zipWithIndex.flatMap { case ((name, value), i) =>
          if (placement(name) || errorFlags(name) || value.isInstanceOf[AggregateMode]) None
          else if (name == "replacement" && e.isInstanceOf[RuntimeReplaceable]) None
          else if (name == "timeZoneId" && !usesTimeZone(e)) None
          else if (isEvalMode(value)) evalMode(value)
          else if (!value.isInstanceOf[Expression] && isDefault(e, i, value)) None
          else argument(value).map(v => if (value.isInstanceOf[Expression]) v else s"$name=$v")
        }
        s"${e.getClass.getSimpleName}(${args.mkString(", ")})"
    }

    /** The text of one constructor argument, None for an argument that does not count. */
    private def argument(value: Any): Option[String] = value match {
      case e: Expression => Some(expression(e))
      case id: ExprId => Some(ordinal(id.id))
      case null => Some("null")
      case None => Some("None")
      case Some(v) => argument(v)
      case s: Iterable[_] => Some(s.flatMap(argument).mkString("[", ", ", "]"))
      case a: Array[_] => argument(a.toSeq)
      case s: String => Some(s)
      case s: UTF8String => Some(s.toString)
      case v @ (_: Boolean | _: Byte | _: Short | _: Int | _: Long | _: Float | _: Double | _: Char) =>
        Some(v.toString)
      case t: DataType => Some(t.sql)
      case v: Enumeration#Value => Some(v.toString)
      case p: Product if p.getClass.getSimpleName == "CommonExpressionId" => Some(ordinal(p.productElement(0)))
      case p: Product if p.getClass.getName.startsWith("scala.") => Some(p.toString)
      case p: Product =>
        Some(s"${p.getClass.getSimpleName}(${p.productIterator.flatMap(argument).mkString(", ")})")
      case other => Some(className(other))
    }

  }

  /**
   * An evaluation mode (Spark 3.5's `evalMode`, Spark 4's `evalContext` that holds one) counts
   * only as TRY, written without its parameter's name: LEGACY and ANSI differ only in raising
   * errors.
   */
  private def isEvalMode(value: Any): Boolean = value match {
    case v: Enumeration#Value => EvalMode.values.exists(_ == v)
    case p: Product => p.getClass.getSimpleName == "NumericEvalContext"
    case _ => false
  }

  private def evalMode(value: Any): Option[String] = value match {
    case p: Product if !value.isInstanceOf[Enumeration#Value] => evalMode(p.productElement(0))
    case v => if (v == EvalMode.TRY) Some("TRY") else None
  }

  /** Spark gives every time-zone-aware expression the session's zone; a cast uses it seldom. */
  private def usesTimeZone(e: Expression): Boolean = e match {
    case c: Cast => c.needsTimeZone
    case _ => true
  }

  /**
   * Whether constructor argument `i` of `e` is its default value (the companion's
   * `<init>$default$N`), so that a flag Spark added with a default leaves the text unchanged.
   */
  private def isDefault(e: Expression, i: Int, value: Any): Boolean = Try {
    val companion = Class.forName(e.getClass.getName + "$", true, e.getClass.getClassLoader)
    val module = companion.getField("MODULE$").get(null)
    val default = companion.getMethod("$lessinit$greater$default$" + (i + 1)).invoke(module)
    default == value
  }.getOrElse(false)

  /** A class name that is the same in every JVM: lambdas' generated suffixes dropped. */
  private def className(value: Any): String =
    value.getClass.getName.replaceAll("\\$\\$Lambda.*$", "\\$\\$Lambda")
}
