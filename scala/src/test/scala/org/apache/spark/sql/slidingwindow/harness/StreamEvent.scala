package org.apache.spark.sql.slidingwindow.harness

/**
 * What happens to the query before one of its micro-batches, besides the micro-batch itself.
 */
sealed trait StreamEvent

object StreamEvent {
  /**
   * The query stops after its last commit and starts again from its checkpoint, in a new state
   * store provider, with `settings` (the session's settings of the operator, which a restart may
   * change) from then on.
   */
  final case class Restart(settings: Map[String, String]) extends StreamEvent

  /**
   * The micro-batch's task fails once after `pulled` output rows (all of them if more): its store
   * is aborted instead of committed, the query restarts, and the micro-batch runs again, which
   * must emit what it would have emitted.
   */
  final case class Crash(pulled: Int) extends StreamEvent
}
