package org.apache.spark.sql.slidingwindow.harness

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SortOrder
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.slidingwindow.state.{StateArrangement, StateStoreSchema}

/**
 * A streaming operator as the harness drives it: what its exec does in one partition of one
 * micro-batch (its state over the store, its processor over the input), without Spark's query
 * around it. `O` is an output row, decoded (copied out of the operator's reused row).
 */
trait HarnessOperator[O] {
  /** The state's schemas and key encoding, as the exec opens its stores. */
  def schema: StateStoreSchema

  /** How its state is arranged in its store, for its whole life. */
  def arrangement: StateArrangement

  /** How the exec requires its input sorted within a partition (empty: in any order). */
  def inputOrdering: Seq[SortOrder]

  /**
   * Starts micro-batch `batchId` over `store`, with the session's settings `conf`: its output
   * rows are computed as they are pulled, as in the exec; [[OperatorBatch.commit]] once they are.
   */
  def start(store: StateStore, batchId: Long, batch: MicroBatch, conf: SQLConf, input: Iterator[InternalRow])
      : OperatorBatch[O]

  /**
   * The rows its state keeps beside its groups' rows that its own count leaves out (state format
   * 2's commit row, which holds the count): all a drained state keeps.
   */
  def bookkeepingRows: Long
}

/** One micro-batch of an operator under way. */
trait OperatorBatch[O] {
  /** The output rows, decoded as they are pulled. */
  def output: Iterator[O]

  /** What the exec does once the output is read: the state's commit (which commits the store). */
  def commit(): Unit

  /** The operator's own count of its state rows at the commit, where it keeps one (less [[HarnessOperator.bookkeepingRows]]). */
  def rowCount: Option[Long]
}
