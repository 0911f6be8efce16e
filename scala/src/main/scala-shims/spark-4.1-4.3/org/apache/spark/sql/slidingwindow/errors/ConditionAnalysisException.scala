package org.apache.spark.sql.slidingwindow.errors

import org.apache.spark.QueryContext
import org.apache.spark.sql.AnalysisException

/**
 * An [[AnalysisException]] of one of the extension's conditions, on Spark 4.1 and later, whose
 * AnalysisException carries the SQLSTATE and message template it is given: Spark's copies
 * (`withPosition`) go through [[sameCondition]] and stay of the subclass.
 */
abstract class ConditionAnalysisException(
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

  /** A copy of the same condition with these fields. */
  protected def sameCondition(message: String, line: Option[Int], startPosition: Option[Int],
      cause: Option[Throwable], parameters: Map[String, String]): AnalysisException

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
      messageTemplate: Option[String]): AnalysisException =
    if (errorClass.contains(condition)) sameCondition(message, line, startPosition, cause, messageParameters)
    else super.copy(message, line, startPosition, cause, errorClass, messageParameters, context,
      sqlState, messageTemplate)
}
