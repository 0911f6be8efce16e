package org.apache.spark.sql.slidingwindow

import org.apache.spark.{SparkThrowable, SparkThrowableHelper}

/** What the suites read from Spark's throwables, on Spark 4.0 (no message templates). */
object TestThrowables {
  def condition(e: Any): String = e.asInstanceOf[SparkThrowable].getCondition
  def template(e: Any): Option[String] = None
  def isSparkCondition(condition: String): Boolean = SparkThrowableHelper.isValidErrorClass(condition)
}
