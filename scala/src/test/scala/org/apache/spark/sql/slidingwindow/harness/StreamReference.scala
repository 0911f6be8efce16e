package org.apache.spark.sql.slidingwindow.harness

/**
 * What a stream emits by the definition of its operator, micro-batch by micro-batch, in each
 * output mode the operator has. Restarts and crashes change nothing of it: a restarted query
 * emits what one that ran without stopping emits.
 */
trait StreamReference[O] {
  def append(stream: HarnessStream): IndexedSeq[Seq[O]]
  def update(stream: HarnessStream): IndexedSeq[Seq[O]]
}
