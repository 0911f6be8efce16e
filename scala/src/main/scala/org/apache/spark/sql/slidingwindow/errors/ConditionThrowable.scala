package org.apache.spark.sql.slidingwindow.errors

/**
 * A [[org.apache.spark.SparkThrowable]] of one of the extension's conditions: its SQLSTATE and
 * parameters come from [[WindowErrorConditions]]; how the condition itself is reported differs per
 * Spark version ([[ConditionThrowableOfThisSpark]]).
 */
trait ConditionThrowable extends ConditionThrowableOfThisSpark {
  protected def parameters: Map[String, String]

  override def getSqlState: String = WindowErrorConditions.sqlState(condition)

  override def getMessageParameters: java.util.Map[String, String] =
    WindowErrorConditions.javaParameters(parameters)
}
