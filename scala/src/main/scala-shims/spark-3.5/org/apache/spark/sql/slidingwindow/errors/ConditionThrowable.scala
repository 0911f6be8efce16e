package org.apache.spark.sql.slidingwindow.errors

import org.apache.spark.SparkThrowable

/**
 * A [[SparkThrowable]] of one of the extension's conditions, on Spark 3.5, whose SparkThrowable names the condition `getErrorClass` (`getCondition` is
 * Spark 4's name, kept here for the extension's own callers).
 */
trait ConditionThrowable extends SparkThrowable {
  protected def condition: String
  protected def parameters: Map[String, String]

  override def getErrorClass: String = condition
  def getCondition: String = condition

  override def getSqlState: String = WindowErrorConditions.sqlState(condition)

  override def getMessageParameters: java.util.Map[String, String] =
    WindowErrorConditions.javaParameters(parameters)
}
