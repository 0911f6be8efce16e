package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.internal.SQLConf

/**
 * State format 2: how a group's rows are arranged between its record and rows of their own
 * ([[GroupRecordSession]]), from the session's configuration (docs/user-guide.md, the settings
 * streaming queries read).
 *
 * @param inlineRows  a group keeps its Partial and Suffix rows in its record (and its chunks)
 *                    while it has at most this many; beyond, in rows of their own
 * @param resweepRows append mode: a group with at most this many Partial rows is swept again in
 *                    memory at each visit and keeps no queue ([[WindowState.resweepable]])
 * @param chunkRows   a larger group keeps the rows its visits do not touch in chunks of at most
 *                    this many, each a row of its own ([[GroupRecord.chunks]])
 * @param hotRows     ... and keeps this many rows at each end of its queue in its record
 * @param chunked     whether larger groups move rows into chunks: in append mode, whose visits
 *                    touch the ends of a group's queue; update mode's read every row of a window
 */
final case class RecordLimits(inlineRows: Int, resweepRows: Int, chunkRows: Int, hotRows: Int, chunked: Boolean) {
  require(inlineRows >= 0, s"${RecordLimits.inlineRowsKey} must not be negative, got $inlineRows")
  require(resweepRows >= 0, s"${RecordLimits.resweepRowsKey} must not be negative, got $resweepRows")
  require(chunkRows >= 1, s"${RecordLimits.chunkRowsKey} must be positive, got $chunkRows")
  require(hotRows >= 0, s"${RecordLimits.hotRowsKey} must not be negative, got $hotRows")
}

object RecordLimits {
  // The four are tuning settings a user never needs: docs/development.md, "Internal settings".
  /** Internal, tuning: the most rows a group keeps in its record. */
  val inlineRowsKey = "spark.sql.slidingWindow.state.inlineRows"
  /** Internal, tuning: a group with at most this many Partial rows keeps no queue in append mode. */
  val resweepRowsKey = "spark.sql.slidingWindow.state.resweepRows"
  /** Internal, tuning: the most rows of a chunk. */
  val chunkRowsKey = "spark.sql.slidingWindow.state.chunkRows"
  /** Internal, tuning: the rows at each end of a chunked queue kept in the record. */
  val hotRowsKey = "spark.sql.slidingWindow.state.hotRows"

  // Measured on the streaming benchmark (docs/performance.md): a group of a few rows costs least
  // swept again in its record; a larger one with its queue's ends in its record and the rest in
  // chunks, whose cost does not grow with the window.
  val defaultInlineRows = 512
  val defaultResweepRows = 16
  val defaultChunkRows = 16
  val defaultHotRows = 2

  def apply(conf: SQLConf, appendMode: Boolean): RecordLimits = {
    def int(key: String, default: Int) = conf.getConfString(key, default.toString).toInt
    RecordLimits(int(inlineRowsKey, defaultInlineRows), int(resweepRowsKey, defaultResweepRows),
      int(chunkRowsKey, defaultChunkRows), int(hotRowsKey, defaultHotRows), chunked = appendMode)
  }
}
