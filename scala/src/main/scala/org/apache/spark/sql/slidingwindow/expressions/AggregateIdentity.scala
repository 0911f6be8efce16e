package org.apache.spark.sql.slidingwindow.expressions

import scala.collection.mutable
import scala.util.Try

import org.apache.spark.sql.catalyst.ScalaReflection
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, Cast, EvalMode, ExprId, Expression, Literal, RuntimeReplaceable, RuntimeReplaceableAggregate}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, AggregateFunction, AggregateMode}
import org.apache.spark.sql.catalyst.util.quoteIfNeeded
import org.apache.spark.sql.internal.SQLConf
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
 *    DISTINCT and FILTER, and the result type;
 *  - `released`: the same in the form release 0.2.0 recorded (identity form 1), by which a
 *    record that release wrote is compared before it is upgraded.
 *
 * Like Spark's canonical form, `computes` leaves out what only names or places an expression:
 * expression ids (numbered in order of appearance instead), aggregation buffer offsets and the
 * aggregate mode. It also leaves out what the optimizer or the Spark version decides and what
 * only decides whether bad input raises an error, so that a checkpoint restarts in another JVM
 * and on a later Spark: the ANSI evaluation mode (Spark 4 made ANSI the default; TRY, as in
 * `try_sum`, is kept), the time zone a node carries (the zone counts once, see below), lambda class names'
 * generated suffixes, the replacement a runtime-replaceable expression carries (derived from its
 * arguments, by each Spark its own way), and a constructor argument left at the value Spark
 * gives it by default (Spark adds flags with defaults that keep the earlier behaviour).
 *
 * The current form (2) also counts, where form 1 did not:
 *  - a column's type (`v BIGINT`): a sketch hashes an INT and a BIGINT differently;
 *    and its name as Spark resolves it ([[ResolvedName]]: `V` is `v` unless
 *    `spark.sql.caseSensitive`; form 1 kept the case the query wrote);
 *  - the session time zone, once, wherever the aggregate reads it by the rule of
 *    [[SessionTimeZone]] (`extract(HOUR FROM ts)` is `hour(ts)` in the session's zone;
 *    `make_timestamp(2023, 11, 14, 1, 0, 0)`, folded to a constant, was computed in it), and
 *    not where it does not (form 1 showed each time-zone-aware node's zone);
 *  - a flag whose default a session setting decides, against Spark's default of that setting;
 *  - a user's function by what it runs ([[FunctionIdentity]]): a Java UDF class, a lambda's
 *    method, a Python function's pickled code (not its interpreter's path);
 *
 * and compares as Spark does: a constant argument by its value and type (`0.5` written in SQL,
 * `CAST(0.5BD AS DOUBLE)`, and `0.5D` from Python are one value), and an aggregate that Spark
 * replaces by another (`any_value(v)` by `first(v)`) as that other, since Spark's planner keeps
 * one column for both.
 */
final case class AggregateIdentity(sql: String, computes: String, released: String)

object AggregateIdentity {
  /** The form of `computes`, recorded beside it; records without one hold form 1 (release 0.2.0). */
  val form = 2

  def of(aggregate: AggregateExpression): AggregateIdentity = {
    val unqualified = aggregate.transform { case a: AttributeReference => a.withQualifier(Nil) }
    // Every windowed aggregation, batch ones too, is described here: an expression whose
    // arguments cannot be read this way is described by Spark's canonical form instead.
    // Once per aggregate, where anything in it reads the zone ([[SessionTimeZone]]), or may.
    val zone = if (Try(SessionTimeZone.isRead(aggregate)).getOrElse(true)) s" IN TIME ZONE ${SQLConf.get.sessionLocalTimeZone}" else ""
    def render(released: Boolean) =
      Try(new Renderer(released).expression(aggregate)).getOrElse(aggregate.canonicalized.toString) +
        " RETURNS " + aggregate.dataType.sql + (if (released) "" else zone)
    AggregateIdentity(Try(unqualified.sql).getOrElse(aggregate.toString), render(released = false),
      render(released = true))
  }

  /** Arguments that only name or place an expression in a plan, by constructor parameter name. */
  private val placement = Set("resultId", "mutableAggBufferOffset", "inputAggBufferOffset", "qualifier")

  /** Flags that only decide whether bad input fails the query (ANSI mode). */
  private val errorFlags = Set("failOnError", "ansiEnabled")

  /** Renders an expression in the current form, or with `released` in form 1. */
  private final class Renderer(released: Boolean) {
    private val ids = mutable.LinkedHashMap[Any, Int]()

    private def ordinal(id: Any): String = s"#${ids.getOrElseUpdate(id, ids.size)}"

    def expression(e: Expression): String = e match {
      case a: Attribute => if (released) quoteIfNeeded(a.name) else s"${quoteIfNeeded(ResolvedName(a.name))} ${a.dataType.sql}"
      case l: Literal => l.sql
      case r: RuntimeReplaceableAggregate if !released && isRenamed(r) => expression(r.replacement)
      case c if !released && c.foldable && c.deterministic => constant(c).getOrElse(node(c))
      case _ => node(e)
    }

    /** A constant expression by its value and type, as the literal Spark would fold it to. */
    private def constant(e: Expression): Option[String] = Try(Literal(e.eval(), e.dataType).sql).toOption

    private def node(e: Expression): String = {
      val names = Try(ScalaReflection.getConstructorParameterNames(e.getClass)).toOption
        .filter(_.length == e.productArity)
        .getOrElse((0 until e.productArity).map(i => s"_$i"))
      val args = names.zip(e.productIterator.toSeq).zipWithIndex.flatMap { case ((name, value), i) =>
        if (placement(name) || errorFlags(name) || value.isInstanceOf[AggregateMode]) None
        else if (name == "replacement" && e.isInstanceOf[RuntimeReplaceable]) None
        else if (name == "timeZoneId" && (!released || !usesTimeZone(e))) None
        else if (isEvalMode(value)) evalMode(value)
        else if (!value.isInstanceOf[Expression] && isDefault(e, i, value, released)) None
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
      case f: AnyRef if !released && FunctionIdentity.isPythonFunction(f) => Some(FunctionIdentity.describePython(f))
      case p: Product if p.getClass.getName.startsWith("scala.") => Some(p.toString)
      case p: Product =>
        Some(s"${p.getClass.getSimpleName}(${p.productIterator.flatMap(argument).mkString(", ")})")
      case other: AnyRef if !released => Some(FunctionIdentity.describe(other))
      case other => Some(className(other))
    }
  }

  /**
   * An aggregate that is another one under another name (`any_value(v)` replaced by
   * `first(v)`): Spark's planner keeps one column for both, so a restart may write either.
   */
  private def isRenamed(r: RuntimeReplaceableAggregate): Boolean = r.replacement match {
    case f: AggregateFunction => f.children == r.children
    case _ => false
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

  /** Form 1: Spark gives every time-zone-aware expression the session's zone; a cast uses it seldom. */
  private def usesTimeZone(e: Expression): Boolean = e match {
    case c: Cast => c.needsTimeZone
    case _ => true
  }

  /**
   * Whether constructor argument `i` of `e` is its default value (the companion's
   * `<init>$default$N`), so that a flag Spark added with a default leaves the text unchanged. A
   * default that reads a session setting (`size`'s `legacySizeOfNull`) is taken under Spark's
   * defaults of every setting, so that a session that changed the setting counts; form 1 took it
   * under the session's own settings.
   */
  private def isDefault(e: Expression, i: Int, value: Any, released: Boolean): Boolean = Try {
    val companion = Class.forName(e.getClass.getName + "$", true, e.getClass.getClassLoader)
    val module = companion.getField("MODULE$").get(null)
    val method = companion.getMethod("$lessinit$greater$default$" + (i + 1))
    val default = if (released) method.invoke(module) else SQLConf.withExistingConf(sparkDefaults)(method.invoke(module))
    default == value
  }.getOrElse(false)

  /** Spark's default of every setting, read only (by the defaults of constructor arguments). */
  private lazy val sparkDefaults = new SQLConf

  /** A class name that is the same in every JVM: lambdas' generated suffixes dropped. */
  private def className(value: Any): String =
    value.getClass.getName.replaceAll("\\$\\$Lambda.*$", "\\$\\$Lambda")
}
