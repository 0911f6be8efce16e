package org.apache.spark.sql.slidingwindow.shims

/**
 * The session class of Spark's own (JVM) execution, which planner strategies and columnar rules
 * receive: `sql.classic.SparkSession` since Spark 4.0 (`sql.SparkSession` became an interface
 * shared with Spark Connect).
 */
object ClassicSession {
  type SparkSession = org.apache.spark.sql.classic.SparkSession
}
