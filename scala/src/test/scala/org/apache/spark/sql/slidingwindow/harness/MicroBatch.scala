package org.apache.spark.sql.slidingwindow.harness

/**
 * One micro-batch of a stream: its input rows (in arrival order; the operator harness sorts them
 * as the operator requires) and its two watermarks in microseconds, as Spark hands them to a
 * stateful operator: rows at or before `lateMicros` are late (the eviction watermark of the
 * micro-batch before), windows and rows at or before `evictionMicros` are due.
 */
final case class MicroBatch(rows: IndexedSeq[InputRow], lateMicros: Long, evictionMicros: Long) {
  require(lateMicros <= evictionMicros, s"watermarks go forward: $lateMicros, then $evictionMicros")

  /** The rows not late: those the operator keeps (or applies, batch windows). */
  def kept: IndexedSeq[InputRow] = rows.filter(_.t.exists(_ > lateMicros))

  override def toString: String =
    s"MicroBatch(late=$lateMicros, eviction=$evictionMicros, ${rows.mkString("[", ", ", "]")})"
}
