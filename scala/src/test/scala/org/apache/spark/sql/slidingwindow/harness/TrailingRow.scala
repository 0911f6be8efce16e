package org.apache.spark.sql.slidingwindow.harness

/** An output row of trailing windows: the input row, and its aggregates over each frame in order. */
final case class TrailingRow(row: InputRow, frames: Seq[Aggregated]) {
  override def toString: String = s"$row ${frames.mkString("{", "; ", "}")}"
}
