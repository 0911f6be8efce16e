package org.apache.spark.sql.slidingwindow.errors

import org.apache.spark.SparkThrowable

/**
 * A [[SparkThrowable]] of one of the extension's conditions, on Spark 4.1 and later.
 */
trait ConditionThrowable extends SparkThrowable {
  protected def condition: String
  protected def parameters: Map[String, String]

  override def getCondition: String = condition

  override def getSqlState: String = WindowErrorConditions.sqlState(condition)

  override def getMessageParameters: java.util.Map[String, String] =
    WindowErrorConditions.javaParameters(parameters)

  override def getDefaultMessageTemplate: String = WindowErrorConditions.template(condition)
}
