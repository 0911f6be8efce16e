package org.apache.spark.sql.slidingwindow.stream

import org.apache.spark.sql.execution.streaming

/** Spark's memory source of tests, in `execution.streaming` up to Spark 4.0. */
object MemoryStreams {
  type MemoryStream[A] = streaming.MemoryStream[A]
  val MemoryStream: streaming.MemoryStream.type = streaming.MemoryStream
}
