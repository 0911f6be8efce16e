package org.apache.spark.sql.slidingwindow.analysis

import org.apache.spark.sql.catalyst.streaming.InternalOutputModes
import org.apache.spark.sql.catalyst.util.quoteIfNeeded
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.logical.StreamingTrailingWindow
import org.apache.spark.sql.streaming.OutputMode

/**
 * What a streaming query of trailing windows needs, once its output mode is known: the Append
 * mode (each row is emitted once, with its final values) and a watermark on the ORDER BY column
 * (which says when a row's frames are complete). Checked when the query starts
 * ([[CheckStreamingWatermarks]], Spark 4.0 and later) and again when a micro-batch is planned
 * (every Spark).
 */
object StreamingTrailingWindowChecks {
  def apply(w: StreamingTrailingWindow, mode: OutputMode): Unit = {
    lazy val expressions = w.windowExpressions.map(_.sql).mkString(", ")
    if (mode != InternalOutputModes.Append) WindowErrors.trailingOutputMode(expressions, mode.toString)
    if (!TimeColumnWatermark.onTime(w.time)) {
      WindowErrors.trailingWithoutWatermark(expressions, quoteIfNeeded(w.timeName), TimeColumnWatermark.declared(w.child))
    }
  }
}
