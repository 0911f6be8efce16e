package org.apache.spark.sql.slidingwindow.idle

import org.apache.spark.sql.execution.SparkPlan

/**
 * What a streaming operator that closes its windows (or emits its rows) when its input goes
 * quiet has on the driver (docs/streaming.md, "When the stream goes quiet"): its settings, the
 * [[IdleClock]] of its micro-batch, the [[EarliestVisit]] its tasks report (the earliest time
 * anything of its state is due), the decision to run a micro-batch without new input, and the
 * `whenQuiet` detail of its plan.
 */
trait QuietClose { self: SparkPlan =>
  def idle: IdleSettings
  def idleClock: Option[IdleClock]
  def eventTimeWatermarkForEviction: Option[Long]

  // The earliest time anything is due after this micro-batch: read on the driver once it ran.
  @transient private lazy val earliestDue = {
    val acc = new EarliestVisit
    sparkContext.register(acc, "earliest visit scheduled")
    acc
  }

  /** Where the tasks report the earliest time due, where the operator can close while quiet. */
  protected def earliestDueReport: Option[EarliestVisit] = if (idle.enabled) Some(earliestDue) else None

  /** Spark's own eviction watermark, microseconds, where the operator keeps an idle clock. */
  protected def sparkEvictionMicros: Option[Long] = idleClock.map(_.sparkEvictionMs * 1000)

  /**
   * Another micro-batch, without new input, when Spark's watermark moved (as Spark's own
   * operators), or when the idle clock would make something due ([[IdleClock.wantsAnotherBatch]]).
   * Whether to run one need not be replayable: a micro-batch logged is run again as it is.
   */
  protected def runAnotherBatch(newInputWatermark: Long): Boolean =
    idleClock.map(clock => newInputWatermark > clock.evictionMs ||
      clock.wantsAnotherBatch(idle, newInputWatermark, System.currentTimeMillis(), earliestDue.value))
      .getOrElse(eventTimeWatermarkForEviction.exists(newInputWatermark > _))

  /** The `whenQuiet` detail of the plan: the settings, and since when the input is quiet. */
  protected def whenQuiet: (String, String, String) =
    ("whenQuiet", "When the input goes quiet", idle.toString +
      idleClock.filter(_.movedOn).map(c => s"; quiet since ${c.lastInputMs} ms, Spark's eviction watermark " +
        s"${c.sparkEvictionMs} ms").getOrElse(""))
}
