package org.apache.spark.sql.slidingwindow.shims

import org.apache.spark.sql.execution.ExternalAppendOnlyUnsafeRowArray
import org.apache.spark.sql.internal.SQLConf

/** Spark's buffer of rows that spills to disk, with the limits Spark's WindowExec uses. */
object SpillableRows {
  def apply(conf: SQLConf): ExternalAppendOnlyUnsafeRowArray =
    new ExternalAppendOnlyUnsafeRowArray(conf.windowExecBufferInMemoryThreshold, conf.windowExecBufferSpillThreshold)
}
