package org.apache.spark.sql.slidingwindow

import org.apache.spark.sql.{Encoder, Encoders, SparkSession}
import org.apache.spark.sql.expressions.Aggregator
import org.apache.spark.sql.functions.udaf

/** Sums longs: a typed Scala Aggregator (run by Spark as a TypedImperativeAggregate). */
class LongSumAggregator extends Aggregator[Long, Long, Long] with Serializable {
  override def zero: Long = 0L
  override def reduce(buffer: Long, value: Long): Long = buffer + value
  override def merge(b1: Long, b2: Long): Long = b1 + b2
  override def finish(buffer: Long): Long = buffer
  override def bufferEncoder: Encoder[Long] = Encoders.scalaLong
  override def outputEncoder: Encoder[Long] = Encoders.scalaLong
}

/**
 * Joins strings with ",", in the order rows were reduced and buffers merged: order-sensitive, so
 * a wrong merge order shows. Null inputs are skipped; the empty buffer is "" (so empty-string
 * inputs are indistinguishable from nothing, which the tests avoid).
 */
class StringConcatAggregator extends Aggregator[String, String, String] with Serializable {
  override def zero: String = ""
  override def reduce(buffer: String, value: String): String = join(buffer, value)
  override def merge(b1: String, b2: String): String = join(b1, b2)
  override def finish(buffer: String): String = buffer
  override def bufferEncoder: Encoder[String] = Encoders.STRING
  override def outputEncoder: Encoder[String] = Encoders.STRING

  private def join(left: String, right: String): String =
    if (right == null || right.isEmpty) left
    else if (left == null || left.isEmpty) right
    else left + "," + right
}

/** Registers the test-only Scala UDAFs; called by the pytest fixture through py4j. */
object TestAggregators {
  def register(spark: SparkSession): Unit = {
    spark.udf.register("typed_sum", udaf(new LongSumAggregator, Encoders.scalaLong))
    spark.udf.register("typed_concat", udaf(new StringConcatAggregator, Encoders.STRING))
  }
}
