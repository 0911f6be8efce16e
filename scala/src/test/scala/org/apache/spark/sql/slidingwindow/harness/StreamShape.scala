package org.apache.spark.sql.slidingwindow.harness

/**
 * The shape of the random streams of one operator ([[StreamGenerator]]), in microseconds.
 *
 * @param distances how far apart the operator's definition puts its bounds (window sizes, frame
 *                  sizes and lags): rows are placed at exactly these from earlier rows, and 1 µs
 *                  either side, and on multiples of them (the batch windows' alignment)
 * @param settings  the session settings of the operator a restart may change: each a key and the
 *                  values to choose from (a setting left out keeps its default)
 * @param fixed     settings chosen once per stream (what a checkpoint cannot change)
 */
final case class StreamShape(
    distances: Seq[Long],
    groups: Int = 4,
    batches: Int = 14,
    maxRowsPerBatch: Int = 12,
    stepMicros: Long = 2500000L,
    disorderMicros: Long = 4000000L,
    delayMicros: Long = 3000000L,
    settings: Map[String, Seq[String]] = Map.empty,
    fixed: Map[String, Seq[String]] = Map.empty)
