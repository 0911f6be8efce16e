package org.apache.spark.sql.slidingwindow.shims

/** The session class of Spark's own execution: on Spark 3.5, `sql.SparkSession` itself. */
object ClassicSession {
  type SparkSession = org.apache.spark.sql.SparkSession
}
