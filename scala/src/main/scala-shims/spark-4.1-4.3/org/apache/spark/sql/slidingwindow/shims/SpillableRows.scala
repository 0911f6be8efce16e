package org.apache.spark.sql.slidingwindow.shims

import org.apache.spark.sql.execution.ExternalAppendOnlyUnsafeRowArray
import org.apache.spark.sql.internal.SQLConf

/**
 * Spark's buffer of rows that spills to disk, with the limits Spark's WindowExec uses (Spark 4.1
 * added a limit in bytes).
 */
object SpillableRows {
  def apply(conf: SQLConf): ExternalAppendOnlyUnsafeRowArray =
    new ExternalAppendOnlyUnsafeRowArray(conf.windowExecBufferInMemoryThreshold,
      conf.windowExecBufferSpillSizeThreshold, conf.windowExecBufferSpillThreshold,
      conf.windowExecBufferSpillSizeThreshold)
}
