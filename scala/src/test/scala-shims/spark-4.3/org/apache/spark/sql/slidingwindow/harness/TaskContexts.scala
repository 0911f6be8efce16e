package org.apache.spark.sql.slidingwindow.harness

import java.util.Properties

import org.apache.spark.{SparkEnv, TaskContextImpl}
import org.apache.spark.executor.TaskMetrics
import org.apache.spark.memory.TaskMemoryManager

/** A task's context for the harness's micro-batches, on Spark 4.3 (a task's cpus: a BigDecimal). */
object TaskContexts {
  def create(attempt: Long, memory: TaskMemoryManager): TaskContextImpl =
    new TaskContextImpl(0, 0, 0, attempt, 0, 1, memory, new Properties, SparkEnv.get.metricsSystem,
      TaskMetrics.empty, BigDecimal(1), Map.empty)
}
