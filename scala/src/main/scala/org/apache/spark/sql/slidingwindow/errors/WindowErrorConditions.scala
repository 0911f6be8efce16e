package org.apache.spark.sql.slidingwindow.errors

import java.io.FileNotFoundException
import java.net.URL

import scala.jdk.CollectionConverters._

import org.apache.spark.ErrorClassesJsonReader

/**
 * The extension's error conditions, read from `error/sliding-window-error-conditions.json` in its
 * jar: each one a message template with `<parameters>` and a SQLSTATE, in the format of Spark's
 * own error-conditions.json, read by Spark's own reader.
 *
 * Spark's list of conditions is closed (SparkThrowableHelper reads only Spark's file), so the
 * exceptions carry the rendered message, the SQLSTATE and the template with them (the fields
 * AnalysisException keeps through `withPosition`) instead of looking them up in Spark's list.
 */
object WindowErrorConditions {

  /** Where the conditions are, in the jar. */
  val resource = "error/sliding-window-error-conditions.json"

  private def source: URL = Option(getClass.getClassLoader.getResource(resource)).getOrElse {
    throw new FileNotFoundException(
      s"$resource is missing from the sliding-window-agg jar (class loader ${getClass.getClassLoader})")
  }

  private lazy val reader = new ErrorClassesJsonReader(Seq(source))

  /** Every condition, as `getCondition()` returns it: `MAIN` or, with sub-conditions, `MAIN.SUB`. */
  lazy val all: Seq[String] = reader.errorInfoMap.toSeq.sortBy(_._1).flatMap { case (main, info) =>
    info.subClass match {
      case Some(subs) => subs.keys.toSeq.sorted.map(sub => s"$main.$sub")
      case None => Seq(main)
    }
  }

  def exists(condition: String): Boolean = all.contains(condition)

  /** The message template of a condition; a sub-condition's follows its main condition's. */
  def template(condition: String): String = reader.getMessageTemplate(condition)

  /** The SQLSTATE of a condition (that of its main condition). */
  def sqlState(condition: String): String = reader.getSqlState(condition)

  /** The parameter names that the template of a condition uses. */
  def parameters(condition: String): Seq[String] =
    "<([a-zA-Z0-9_-]+)>".r.findAllMatchIn(template(condition)).map(_.group(1)).toSeq.distinct

  /**
   * The message users see: `[CONDITION] ` and the template filled with `parameters`, which must
   * be exactly the template's parameters (no missing one, no extra one).
   */
  def message(condition: String, parameters: Map[String, String]): String = {
    require(exists(condition), s"Unknown error condition of sliding-window-agg: $condition")
    val expected = this.parameters(condition).toSet
    require(parameters.keySet == expected,
      s"$condition takes the parameters ${expected.mkString(", ")}, " +
        s"not ${parameters.keys.mkString(", ")}")
    s"[$condition] ${reader.getErrorMessage(condition, parameters)}"
  }

  private[errors] def javaParameters(parameters: Map[String, String]): java.util.Map[String, String] =
    parameters.asJava
}
