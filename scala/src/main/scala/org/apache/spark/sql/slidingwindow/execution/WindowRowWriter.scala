package org.apache.spark.sql.slidingwindow.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, BoundReference, Expression, GetStructField, Literal, NamedExpression, UnsafeRow}
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, AggregateParts, WindowContents}
import org.apache.spark.sql.slidingwindow.codegen.{ConcatRow, ProjectionPool}
import org.apache.spark.sql.slidingwindow.expressions.WindowColumn
import org.apache.spark.sql.types.StructType

/**
 * Builds the output row of one window: the operator's result expressions (the SELECT list of the
 * aggregation) over the group's keys, the window column `struct(start, end)` ([[WindowColumn]])
 * and the aggregate results, all in one generated projection. With declarative aggregates the
 * results are computed from the window's two parts inside that projection; otherwise the buffers
 * evaluate them first.
 *
 * @param keys              the grouping keys, as the key rows given to [[write]] hold them
 * @param window            the window column
 * @param aggregateResults  one attribute per aggregate, in the order of the buffers' aggregates
 * @param resultExpressions the output, over `keys`, `window` and `aggregateResults`
 */
final class WindowRowWriter(
    keys: Seq[Attribute],
    window: Attribute,
    aggregateResults: Seq[Attribute],
    resultExpressions: Seq[NamedExpression],
    buffers: AggregateBuffers) {

  private val numKeys = keys.length
  private val windowType = window.dataType.asInstanceOf[StructType]
  private val start = AttributeReference("start", windowType.fields(0).dataType, nullable = false)()
  private val end = AttributeReference("end", windowType.fields(1).dataType, nullable = false)()
  private val header = keys ++ Seq(start, end)

  /** The output expressions with the window column and the aggregate results replaced. */
  private def outputOf(results: Seq[Expression]): Seq[Expression] = {
    val replacement = (window.exprId -> WindowColumn(start, end, windowType)) +:
      aggregateResults.map(_.exprId).zip(results)
    val byId = replacement.toMap
    resultExpressions.map(_.transformUp {
      case a: Attribute if byId.contains(a.exprId) => byId(a.exprId)
    }.transformUp { // w.start, w.end: the bound itself, not a struct built to be taken apart
      case GetStructField(WindowColumn(startBound, endBound, _), ordinal, _) =>
        if (ordinal == 0) startBound else endBound
    })
  }

  private lazy val fromOnePart = ProjectionPool.unsafe(
    outputOf(buffers.evaluateExpressions), header ++ buffers.bufferAttributes)
  private lazy val fromTwoParts = ProjectionPool.unsafe(outputOf(buffers.mergedEvaluateExpressions),
    header ++ buffers.bufferAttributes ++ buffers.inputBufferAttributes)
  private lazy val fromResults = ProjectionPool.unsafe(outputOf(aggregateResults), header ++ aggregateResults)

  // The keys and bounds of the current window, in one UnsafeRow: the keys written once per
  // group, the bounds set in place for each window.
  private val headerOfKeys = ProjectionPool.unsafe(
    keys.zipWithIndex.map { case (k, i) => BoundReference(i, k.dataType, k.nullable) } ++
      Seq(Literal(0L), Literal(0L)))
  private var headerRow: UnsafeRow = _
  private var lastKey: InternalRow = _
  private val input = new ConcatRow
  private val parts = new AggregateParts

  /**
   * The row of the window [start, end] of the group `key` (the same key row for every window of
   * a group). Reused row: copy it to keep it.
   */
  def write(key: InternalRow, start: Long, end: Long, contents: WindowContents): UnsafeRow = {
    if (key ne lastKey) {
      headerRow = headerOfKeys(key).copy()
      lastKey = key
    }
    headerRow.setLong(numKeys, start)
    headerRow.setLong(numKeys + 1, end)
    contents.aggregate(parts)
    if (!buffers.declarative) {
      fromResults(input(headerRow, buffers.evaluate(parts)))
    } else if (parts.older == null) {
      fromOnePart(input(headerRow, parts.newer))
    } else if (parts.newer == null) {
      fromOnePart(input(headerRow, parts.older))
    } else {
      fromTwoParts(input(headerRow, parts.older, parts.newer))
    }
  }
}
