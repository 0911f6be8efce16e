package org.apache.spark.sql.slidingwindow.stream

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.internal.SQLConf

/**
 * Spark's validation of every rule's plan in its own tests, off: it refuses aggregate expressions
 * in any node but Spark's own (`Aggregate`, `Window`), and the extension's windowed aggregation is
 * a node of its own that holds them. Since Spark 4.0, `spark.sql.planChangeValidation` alone
 * turns it on or off.
 */
object PlanChangeValidation {
  def turnOff(spark: SparkSession): Unit = spark.conf.set(SQLConf.PLAN_CHANGE_VALIDATION.key, "false")
}
