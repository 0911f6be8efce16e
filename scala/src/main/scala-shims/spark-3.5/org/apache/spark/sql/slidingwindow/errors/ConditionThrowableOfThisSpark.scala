package org.apache.spark.sql.slidingwindow.errors

import org.apache.spark.SparkThrowable

/**
 * How a [[SparkThrowable]] reports its condition, on Spark 3.5, which calls it `getErrorClass`
 * (`getCondition` is Spark 4's name, kept for the extension's own callers).
 */
trait ConditionThrowableOfThisSpark extends SparkThrowable {
  protected def condition: String

  override def getErrorClass: String = condition

  def getCondition: String = condition
}
