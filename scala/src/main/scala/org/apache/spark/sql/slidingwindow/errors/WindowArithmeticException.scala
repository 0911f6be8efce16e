package org.apache.spark.sql.slidingwindow.errors

import org.apache.spark.SparkThrowable

/**
 * A run-time arithmetic error with one of the extension's error conditions, as Spark's
 * SparkArithmeticException is for Spark's conditions (which it can only look up in Spark's list).
 */
class WindowArithmeticException(condition: String, parameters: Map[String, String])
  extends ArithmeticException(WindowErrorConditions.message(condition, parameters))
  with SparkThrowable {

  override def getCondition: String = condition

  override def getSqlState: String = WindowErrorConditions.sqlState(condition)

  override def getMessageParameters: java.util.Map[String, String] =
    WindowErrorConditions.javaParameters(parameters)

  override def getDefaultMessageTemplate: String = WindowErrorConditions.template(condition)
}
