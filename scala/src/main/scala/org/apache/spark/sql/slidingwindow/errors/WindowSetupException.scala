package org.apache.spark.sql.slidingwindow.errors

/**
 * An error in how the extension was set up (such as a jar built for another Spark), raised when
 * a session applies the extension, with one of the extension's error conditions.
 * What SparkThrowable asks for differs per Spark version: [[ConditionThrowable]].
 */
class WindowSetupException(
    override protected val condition: String,
    override protected val parameters: Map[String, String])
  extends IllegalStateException(WindowErrorConditions.message(condition, parameters))
  with ConditionThrowable
