package org.apache.spark.sql.slidingwindow.harness

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.slidingwindow.shims.ClassicSession

/**
 * The one local Spark of the JVM the harness needs, started when a suite first needs it, as Spark's
 * own StateStoreSuite starts one: its [[org.apache.spark.SparkEnv]] for the tasks' memory and
 * blocks ([[HarnessTask]]), the StateStoreCoordinator the stores report to, and an active session,
 * in which the harness builds the execs it asks what they require of their input (a stateful exec
 * reads its session when it is made). No job ever runs on it. A session another suite left running
 * is used as it is.
 */
object HarnessSpark {
  /** Starts the local Spark if none runs, and makes its session the thread's active one. */
  def start(): Unit = {
    quiet
    val session = SparkSession.getDefaultSession.filterNot(_.sparkContext.isStopped).getOrElse {
      SparkSession.builder()
        .master("local[1]").appName("operator-harness")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1")
        .getOrCreate()
    }
    // The coordinator the stores of a query report to, as a query's driver starts it (once per
    // session): without it, each store looks it up in vain.
    session.asInstanceOf[ClassicSession.SparkSession].streams.stateStoreCoordinator
    SparkSession.setActiveSession(session)
  }

  // Thousands of micro-batches, each opening, loading and committing a store, log several lines at
  // INFO each: only errors are logged.
  private lazy val quiet: Unit = Seq("org.apache.spark.sql.execution.streaming", "org.apache.spark.storage")
    .foreach(org.apache.logging.log4j.core.config.Configurator.setLevel(_, org.apache.logging.log4j.Level.ERROR))
}
