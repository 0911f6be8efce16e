package org.apache.spark.sql.slidingwindow.errors

/**
 * A run-time arithmetic error with one of the extension's error conditions, as Spark's
 * SparkArithmeticException is for Spark's conditions (which it can only look up in Spark's list).
 * What SparkThrowable asks for differs per Spark version: [[ConditionThrowable]].
 */
class WindowArithmeticException(
    override protected val condition: String,
    override protected val parameters: Map[String, String])
  extends ArithmeticException(WindowErrorConditions.message(condition, parameters))
  with ConditionThrowable
