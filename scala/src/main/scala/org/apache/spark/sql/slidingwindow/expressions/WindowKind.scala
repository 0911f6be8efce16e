package org.apache.spark.sql.slidingwindow.expressions

/** The kinds of window this extension adds, one per SQL function. */
sealed abstract class WindowKind(val functionName: String) extends Serializable {
  override def toString: String = functionName
}

object WindowKind {
  /** KIP-450 sliding windows: one window per distinct set of rows a window of the size holds. */
  case object Sliding extends WindowKind("sliding_window")

  /**
   * Batch windows (the BatchWindows draft KIP): tumbling windows chosen by the group's observed
   * stream time when a row arrives, so that late rows are never dropped.
   */
  case object Batch extends WindowKind("batch_window")

  /** Marker key put into the metadata of the window column, as Spark does for `window()`. */
  val metadataKey: String = "sliding_window_agg.window"
}
