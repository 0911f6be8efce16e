package org.apache.spark.sql.slidingwindow.harness

/**
 * One random case of a property: an operator (its definition, output mode, state format and
 * arrangement drawn from the seed), the shape of its stream, and what the stream must emit.
 */
final case class StreamCase[O](
    operator: HarnessOperator[O],
    shape: StreamShape,
    expected: HarnessStream => IndexedSeq[Seq[O]])
