package org.apache.spark.sql.slidingwindow.planning

import java.util.UUID

import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession
import org.apache.spark.sql.slidingwindow.analysis.PlanWindowedAggregates
import org.apache.spark.sql.slidingwindow.logical.{StreamingTrailingWindow, WindowedAggregate}
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.{IncrementalExecution, StatefulOperatorStateInfo, StreamExecution}
import org.apache.spark.sql.slidingwindow.shims.StateInfoOfExecution

/**
 * The micro-batch being planned, for our stateful operator.
 *
 * Spark's IncrementalExecution gives state info and watermarks only to its own operators (closed
 * pattern matches in its `state` rule). Everything after that rule is generic over
 * StateStoreWriter but needs the state info already set, so our strategy sets it while planning:
 * the stream thread's local property names the query, whose latest execution is the
 * IncrementalExecution being planned (it is assigned before its physical plan is forced).
 */
object StreamingQueryContext {
  /** Our operator ids: a range Spark's own ids (0, 1, 2, ...) never reach. */
  val operatorIdBase = 1000L

  private val batchIdProperty = "streaming.sql.batchId"

  /** The query the current thread runs micro-batches of, if it is a stream thread. */
  def currentQuery(session: SparkSession): Option[StreamExecution] =
    for {
      id <- Option(session.sparkContext.getLocalProperty(StreamExecution.QUERY_ID_KEY))
      query <- Option(session.sharedState.activeStreamingQueries.get(UUID.fromString(id)))
    } yield query

  def currentExecution(session: SparkSession): Option[IncrementalExecution] = {
    val sc = session.sparkContext
    for {
      query <- currentQuery(session)
      execution <- Option(query.lastExecution)
      if Option(sc.getLocalProperty(batchIdProperty)).forall(_.toLong == execution.currentBatchId)
    } yield execution
  }

  /**
   * A stable id per windowed aggregate of the query: its position in the optimized plan. Spark
   * 3.5 plans a micro-batch that reads a DataSource V2 stream (Kafka, rate) from a plan that was
   * normalized again, whose columns computed by [[PlanWindowedAggregates]] have other ids: there
   * the node is found by its canonical form, when exactly one node has it.
   */
  def operatorId(execution: IncrementalExecution, node: WindowedAggregate): Long = {
    val nodes = execution.optimizedPlan.collect { case w: WindowedAggregate => w }
    val index = nodes.indexOf(node) match {
      case -1 =>
        val canonical = node.canonicalized
        nodes.indices.filter(i => nodes(i).canonicalized == canonical) match {
          case Seq(only) => only
          case _ => -1
        }
      case found => found
    }
    if (index < 0) throw new IllegalStateException(s"$node not found in the micro-batch plan")
    operatorIdBase + index
  }

  /** The operator ids of streaming trailing windows: a range of their own. */
  val trailingOperatorIdBase = 2000L

  /** A stable id per streaming trailing windows node of the query: its position in the optimized plan. */
  def trailingOperatorId(execution: IncrementalExecution, node: StreamingTrailingWindow): Long = {
    val nodes = execution.optimizedPlan.collect { case w: StreamingTrailingWindow => w }
    val index = nodes.indexOf(node) match {
      case -1 => nodes.indexWhere(_.canonicalized == node.canonicalized)
      case found => found
    }
    if (index < 0) throw new IllegalStateException(s"$node not found in the micro-batch plan")
    trailingOperatorIdBase + index
  }

  /**
   * The state info of our operator `operatorId`. An aggregation without grouping keys runs in a
   * single partition (AllTuples), so it has one state store: its state info says so, or Spark
   * would wait for the commits of stores that no task opens (foreachBatch sinks validate them)
   * and the state data source would look for partitions that do not exist.
   */
  def stateInfo(
      execution: IncrementalExecution,
      operatorId: Long,
      hasKeys: Boolean): StatefulOperatorStateInfo =
    StateInfoOfExecution(execution, operatorId, if (hasKeys) execution.numStateStores else 1)
}
