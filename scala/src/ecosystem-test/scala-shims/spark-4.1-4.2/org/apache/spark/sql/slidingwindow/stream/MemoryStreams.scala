package org.apache.spark.sql.slidingwindow.stream

import org.apache.spark.sql.execution.streaming.runtime

/** Spark's memory source of tests, in `execution.streaming.runtime` since Spark 4.1. */
object MemoryStreams {
  type MemoryStream[A] = runtime.MemoryStream[A]
  val MemoryStream: runtime.MemoryStream.type = runtime.MemoryStream
}
