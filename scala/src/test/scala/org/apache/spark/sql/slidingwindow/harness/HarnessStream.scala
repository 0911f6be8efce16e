package org.apache.spark.sql.slidingwindow.harness

/**
 * A stream as one partition of a query sees it: its micro-batches, what happens before some of
 * them ([[StreamEvent]]: restarts, crashes), and the session's settings of the operator it
 * starts with. Made by [[StreamGenerator]] from `seed`, which names it in every failure.
 */
final case class HarnessStream(
    seed: Long,
    batches: IndexedSeq[MicroBatch],
    events: Map[Int, Seq[StreamEvent]],
    settings: Map[String, String]) {

  def eventsBefore(batch: Int): Seq[StreamEvent] = events.getOrElse(batch, Nil)

  /** Every row of the stream. */
  def rows: IndexedSeq[InputRow] = batches.flatMap(_.rows)

  /** A description for failure messages: the seed, the settings, the events, each micro-batch. */
  def describe: String =
    s"seed $seed, settings $settings, events ${events.toSeq.sortBy(_._1).mkString(", ")}\n" +
      batches.zipWithIndex.map { case (b, i) => s"  $i: $b" }.mkString("\n")
}
