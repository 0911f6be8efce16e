package org.apache.spark.sql.slidingwindow.harness

import org.apache.spark.{SparkEnv, TaskContext}
import org.apache.spark.memory.TaskMemoryManager

/**
 * A micro-batch of the harness runs as a task of an executor would: with a [[TaskContext]] (the
 * trailing windows' spillable buffers and the stores' task listeners need one) and the
 * [[SparkEnv]] of the JVM's local Spark ([[HarnessSpark]]).
 */
object HarnessTask {
  private var attempts = 0L

  /**
   * `body` inside a task context of its own; the task completes (its completion listeners run,
   * as when a task ends) once `body` returns or throws.
   */
  def run[T](body: => T): T = {
    HarnessSpark.start()
    attempts += 1
    val task = TaskContexts.create(attempts, new TaskMemoryManager(SparkEnv.get.memoryManager, attempts))
    TaskContext.setTaskContext(task)
    var error: Option[Throwable] = None
    try body
    catch { case e: Throwable => error = Some(e); throw e }
    finally {
      try task.markTaskCompleted(error)
      finally TaskContext.unset()
    }
  }
}
