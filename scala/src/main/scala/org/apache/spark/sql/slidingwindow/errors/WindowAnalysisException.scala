package org.apache.spark.sql.slidingwindow.errors

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.trees.Origin

/**
 * An [[AnalysisException]] with one of the extension's error conditions: `getCondition`,
 * `getSqlState`, `getMessageParameters` and `getDefaultMessageTemplate` come from
 * [[WindowErrorConditions]], as Delta's DeltaAnalysisException does with Delta's own file.
 *
 * Spark copies analysis errors to add the position in the query (`withPosition`); the copies
 * stay of this class, with the same condition and SQLSTATE ([[ConditionAnalysisException]], whose
 * constructor differs per Spark version).
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
  extends ConditionAnalysisException(message, line, startPosition, cause, condition, parameters) {

  def this(condition: String, parameters: Map[String, String], origin: Origin = Origin()) =
    this(WindowErrorConditions.message(condition, parameters), origin.line, origin.startPosition,
      None, condition, parameters)

  /** One caused by `cause`, such as a failed write. */
  def this(condition: String, parameters: Map[String, String], cause: Throwable) =
    this(WindowErrorConditions.message(condition, parameters), None, None, Some(cause), condition, parameters)

  override protected def sameCondition(message: String, line: Option[Int], startPosition: Option[Int],
      cause: Option[Throwable], parameters: Map[String, String]): AnalysisException = {
    val copied = new WindowAnalysisException(message, line, startPosition, cause, condition, parameters)
    copied.setStackTrace(getStackTrace)
    copied
  }
}
