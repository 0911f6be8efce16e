package org.apache.spark.sql.slidingwindow

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.api.java.UDF1
import org.apache.spark.sql.functions.udf
import org.apache.spark.sql.types.LongType

/** Doubles a long: a Java UDF class, registered by name (`registerJavaFunction`). */
class TimesTwo extends UDF1[java.lang.Long, java.lang.Long] {
  override def call(v: java.lang.Long): java.lang.Long = if (v == null) null else v * 2
}

/** Triples a long: another Java UDF class, for a query that swaps the class under one name. */
class TimesThree extends UDF1[java.lang.Long, java.lang.Long] {
  override def call(v: java.lang.Long): java.lang.Long = if (v == null) null else v * 3
}

/** Multiplies a long by `factor`: one Java UDF class whose instances compute different things. */
class Scale(factor: Long) extends UDF1[java.lang.Long, java.lang.Long] {
  override def call(v: java.lang.Long): java.lang.Long = if (v == null) null else v * factor
}

/** Registers the test-only UDFs whose instances the tests choose; called through py4j. */
object TestUdfs {
  def registerScale(spark: SparkSession, name: String, factor: Long): Unit =
    spark.udf.register(name, new Scale(factor), LongType)

  /** A Scala lambda: the same text of code registered twice is one function, two lambdas are two. */
  def registerLambda(spark: SparkSession, name: String, which: Int): Unit =
    spark.udf.register(name, if (which == 1) udf((v: Long) => v + 1) else udf((v: Long) => v + 2))
}
