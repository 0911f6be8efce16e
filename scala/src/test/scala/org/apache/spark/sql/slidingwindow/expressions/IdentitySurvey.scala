package org.apache.spark.sql.slidingwindow.expressions

import scala.collection.concurrent.TrieMap
import scala.jdk.CollectionConverters._
import scala.util.Try

import org.apache.spark.sql.catalyst.{CatalystTypeConverters, InternalRow}
import org.apache.spark.sql.catalyst.expressions.{Alias, AttributeReference, BindReferences, Expression, RuntimeReplaceable}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, Complete, Count}
import org.apache.spark.sql.catalyst.optimizer.ComputeCurrentTime
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, Project}
import org.apache.spark.sql.catalyst.util.{ArrayData, GenericArrayData}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession
import org.apache.spark.sql.types.{ArrayType, DateType, DoubleType, IntegerType, LongType, StringType, TimestampNTZType, TimestampType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * For tests/test_restart_identity.py: every function of the session's registry called with each
 * argument list that resolves over a few sample rows, what each call computes on those rows
 * (Spark's own interpreted evaluation, replacements and `current_timezone()` in place, as the
 * optimizer puts them) and
 * what an aggregate over it is recorded to compute ([[AggregateIdentity]]), under the session's
 * current settings. The test compares two runs under two values of a setting.
 */
object IdentitySurvey {
  private val k = AttributeReference("k", StringType)()
  private val ts = AttributeReference("ts", TimestampType)()
  private val s = AttributeReference("s", StringType)()
  private val v = AttributeReference("v", LongType)()
  private val d = AttributeReference("d", DoubleType)()
  private val arr = AttributeReference("arr", ArrayType(LongType))()
  private val i = AttributeReference("i", IntegerType)()
  private val dt = AttributeReference("dt", DateType)()
  private val ntz = AttributeReference("ntz", TimestampNTZType)()
  private val columns = Seq(k, ts, s, v, d, arr, i, dt, ntz)

  /** Times whose hour and day differ between UTC and Los Angeles, across DST changes. */
  private val rows: Seq[InternalRow] = Seq(
    (1710063000000000L, "2024-03-10 01:30:00", 1L, Some(Seq(1L))),
    (1710112205000000L, "2024-11-03 08:59:59", 2L, None),
    (1719802800000000L, "2025-01-01 00:00:00", 3L, Some(Seq(3L, 4L))),
    (946684799000000L, "1970-01-01 12:00:00", 4L, Some(Seq.empty[Long]))).map { case (micros, text, n, list) =>
      val array: ArrayData = list.map(xs => new GenericArrayData(xs.toArray[Any])).orNull
      InternalRow(UTF8String.fromString("a"), micros, UTF8String.fromString(text), n, n / 4.0, array,
        n.toInt, (micros / 86400000000L).toInt, micros)
    }

  /**
   * One line per call that resolves: `call`, its values on the sample rows, its identity and its
   * type, separated by tabs. `arguments`: argument lists, each the SQL text of its arguments
   * joined by ", " over the columns k, ts, s, v, d, arr, i (INT), dt (DATE) and ntz
   * (TIMESTAMP_NTZ), or constants only.
   */
  def survey(session: SparkSession, names: java.util.List[String], arguments: java.util.List[String]): java.util.List[String] = {
    val conf = session.sessionState.conf
    SQLConf.withExistingConf(conf) {
      val relation = LocalRelation(columns, rows)
      for {
        name <- names.asScala.toSeq
        args <- arguments.asScala.toSeq
        call = s"$name($args)"
        e <- resolve(session, call, relation)
      } yield s"$call\t${values(e, relation)}\t${identity(e)}\t${e.dataType.sql}"
    }.asJava
  }

  /**
   * Each call parsed once per run, by its text and ANSI mode: the settings the test changes
   * (time zone, legacy flags) are read by the analyzer, not the parser, and parsing was half of
   * a survey's time. An unresolved tree is never changed by an analysis, which builds new ones.
   */
  private val parsed = TrieMap.empty[(String, Boolean), Option[Expression]]

  private def resolve(session: SparkSession, call: String, relation: LocalRelation): Option[Expression] = Try {
    val conf = session.sessionState.conf
    val expression = parsed.getOrElseUpdate((call, conf.ansiEnabled),
      Try(session.sessionState.sqlParser.parseExpression(call)).toOption).get
    session.sessionState.executePlan(Project(Seq(Alias(expression, "c")()), relation)).analyzed
  }.toOption.collect {
    // Not a call that rewrites the plan under it (window, session_window), nor one Spark 3.5
    // resolves without a type (`get` of a timestamp).
    case Project(Seq(Alias(e, _)), `relation`) if e.resolved && e.deterministic && Try(e.dataType).isSuccess => e
  }

  private def values(e: Expression, relation: LocalRelation): String = {
    val computed = ComputeCurrentTime(Project(Seq(Alias(e, "c")()), relation)) match {
      case Project(Seq(Alias(c, _)), _) => c
      case _ => e
    }
    val evaluable = replaced(BindReferences.bindReference(computed, columns))
    def shown(value: Any): String = value match {
      case bytes: Array[Byte] => java.util.Arrays.toString(bytes)
      case other => String.valueOf(other)
    }
    rows.map { row =>
      Try(shown(CatalystTypeConverters.convertToScala(evaluable.eval(row), e.dataType))).getOrElse("<error>")
    }.mkString("[", "; ", "]")
  }

  private def replaced(e: Expression): Expression = e.transformUp { case r: RuntimeReplaceable => replaced(r.replacement) }

  private def identity(e: Expression): String =
    AggregateIdentity.of(AggregateExpression(Count(Seq(e)), Complete, isDistinct = false)).computes
}
