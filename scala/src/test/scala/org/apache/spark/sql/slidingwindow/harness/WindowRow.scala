package org.apache.spark.sql.slidingwindow.harness

/**
 * An output row of a windowed aggregation (sliding or batch windows): the group key, the window's
 * bounds as the operator writes them (microseconds) and its aggregates.
 */
final case class WindowRow(k: Option[Long], start: Long, end: Long, values: Aggregated) {
  override def toString: String = s"(k=${k.getOrElse("null")}, [$start, $end], $values)"
}
