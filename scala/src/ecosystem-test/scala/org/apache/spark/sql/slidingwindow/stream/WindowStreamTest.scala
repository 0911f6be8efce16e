package org.apache.spark.sql.slidingwindow.stream

import org.apache.spark.SparkConf
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.timestamp_seconds
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.SlidingWindowExtensions
import org.apache.spark.sql.slidingwindow.stream.MemoryStreams.MemoryStream
import org.apache.spark.sql.streaming.StreamTest

/**
 * The end-to-end suites of the streaming operators on Spark's own `StreamTest`: real queries on a
 * `MemoryStream`, micro-batch by micro-batch, into Spark's memory sink, in a session that loads
 * the extension. Their input is `(k, t)`: a key and an event time in whole seconds, as column
 * `ts` (a TIMESTAMP) with the watermark `delay` behind it.
 */
trait WindowStreamTest extends StreamTest {
  import testImplicits._

  override protected def sparkConf: SparkConf = super.sparkConf
    .set("spark.sql.extensions", classOf[SlidingWindowExtensions].getName)

  override def beforeAll(): Unit = {
    super.beforeAll()
    // Two partitions: more than one state store per operator, and fewer tasks than Spark's
    // test session's five.
    spark.conf.set(SQLConf.SHUFFLE_PARTITIONS.key, "2")
    PlanChangeValidation.turnOff(spark)
  }

  /** The events, `(k, t)`, and the stream that reads them with a watermark `delay` behind `ts`. */
  protected def events(delay: String = "5 seconds"): (MemoryStream[(String, Long)], DataFrame) = {
    val input = MemoryStream[(String, Long)]
    (input, input.toDF().toDF("k", "t").withColumn("ts", timestamp_seconds($"t")).withWatermark("ts", delay))
  }

  /** The rows the query's stateful operators dropped as late, over its micro-batches so far. */
  protected def rowsDroppedByWatermark(query: org.apache.spark.sql.streaming.StreamingQuery): Long =
    query.recentProgress.flatMap(_.stateOperators).map(_.numRowsDroppedByWatermark).sum
}
