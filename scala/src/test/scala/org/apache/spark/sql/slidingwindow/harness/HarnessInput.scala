package org.apache.spark.sql.slidingwindow.harness

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.execution.LeafExecNode

/**
 * The child of the execs the harness builds to ask them what they require (their input
 * ordering, their frames): never executed, the harness feeds the processors itself.
 */
final case class HarnessInput(output: Seq[Attribute]) extends LeafExecNode {
  override protected def doExecute(): RDD[InternalRow] =
    throw new UnsupportedOperationException("the harness feeds the operator's processor itself")
}
