package org.apache.spark.sql.slidingwindow

import org.apache.spark.{SparkThrowable, SparkThrowableHelper}

/** What the suites read from Spark's throwables, on Spark 4.1 and later. */
object TestThrowables {
  def condition(e: Any): String = e.asInstanceOf[SparkThrowable].getCondition
  /** The message template the throwable reports, where the Spark version has them. */
  def template(e: Any): Option[String] = Some(e.asInstanceOf[SparkThrowable].getDefaultMessageTemplate)
  def isSparkCondition(condition: String): Boolean = SparkThrowableHelper.isValidErrorClass(condition)
}
