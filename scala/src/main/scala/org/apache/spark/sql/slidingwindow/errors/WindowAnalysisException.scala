package org.apache.spark.sql.slidingwindow.errors

import org.apache.spark.QueryContext
import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.trees.Origin

/**
 * An [[AnalysisException]] with one of the extension's error conditions: `getCondition`,
 * `getSqlState`, `getMessageParameters` and `getDefaultMessageTemplate` come from
 * [[WindowErrorConditions]], as Delta's DeltaAnalysisException does with Delta's own file.
 *
 * Spark copies analysis errors to add the position in the query (`withPosition`); the copies
 * stay of this class, with the same condition and SQLSTATE.
 *
 * It carries no query context (`getQueryContext` is empty; the position is kept as
 * `line`/`startPosition`, shown as `; line 1 pos 37` at the end of the message): PySpark, when it
 * converts an exception that has one, logs it through `SparkThrowableHelper.getMessage`, which
 * knows only Spark's conditions and fails on ours, so PySpark would raise that failure instead of
 * this exception.
 */
class WindowAnalysisException private (
    message: String,
    line: Option[Int],
    startPosition: Option[Int],
    cause: Option[Throwable],
    condition: String,
    parameters: Map[String, String])
  extends AnalysisException(
    message, line, startPosition, cause, Some(condition), parameters, Array.empty[QueryContext],
    Some(WindowErrorConditions.sqlState(condition)),
    Some(WindowErrorConditions.template(condition))) {

  def this(condition: String, parameters: Map[String, String], origin: Origin = Origin()) =
    this(WindowErrorConditions.message(condition, parameters), origin.line, origin.startPosition,
      None, condition, parameters)

  override def getQueryContext: Array[QueryContext] = Array.empty

  override def copy(
      message: String,
      line: Option[Int],
      startPosition: Option[Int],
      cause: Option[Throwable],
      errorClass: Option[String],
      messageParameters: Map[String, String],
      context: Array[QueryContext]): AnalysisException =
    copy(message, line, startPosition, cause, errorClass, messageParameters, context,
      sqlState, messageTemplate)

  override def copy(
      message: String,
      line: Option[Int],
      startPosition: Option[Int],
      cause: Option[Throwable],
      errorClass: Option[String],
      messageParameters: Map[String, String],
      context: Array[QueryContext],
      sqlState: Option[String],
      messageTemplate: Option[String]): AnalysisException = errorClass match {
    // A copy with the same condition keeps this class (the SQLSTATE and template follow it).
    case Some(c) if c == condition =>
      val copied = new WindowAnalysisException(
        message, line, startPosition, cause, condition, messageParameters)
      copied.setStackTrace(getStackTrace)
      copied
    case _ =>
      super.copy(message, line, startPosition, cause, errorClass, messageParameters, context,
        sqlState, messageTemplate)
  }
}
