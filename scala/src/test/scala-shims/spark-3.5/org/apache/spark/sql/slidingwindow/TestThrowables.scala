package org.apache.spark.sql.slidingwindow

import org.apache.spark.{SparkThrowable, SparkThrowableHelper}

/** What the suites read from Spark's throwables, on Spark 3.5 (conditions are "error classes"). */
object TestThrowables {
  def condition(e: Any): String = e.asInstanceOf[SparkThrowable].getErrorClass
  def template(e: Any): Option[String] = None
  def isSparkCondition(condition: String): Boolean =
    SparkThrowableHelper.errorReader.errorInfoMap.contains(condition)
}
