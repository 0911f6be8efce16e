package org.apache.spark.sql.slidingwindow.errors

import org.apache.spark.SparkThrowable

/** How a [[SparkThrowable]] reports its condition, on Spark 4.1 and later. */
trait ConditionThrowableOfThisSpark extends SparkThrowable {
  protected def condition: String

  override def getCondition: String = condition

  override def getDefaultMessageTemplate: String = WindowErrorConditions.template(condition)
}
