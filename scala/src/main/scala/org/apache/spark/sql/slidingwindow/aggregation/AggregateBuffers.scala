package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, BasePredicate, BindReferences, BoundReference, EmptyRow, Expression, GenericInternalRow, If, SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, AggregateFunction, DeclarativeAggregate, ImperativeAggregate, NoOp, TypedImperativeAggregate}
import org.apache.spark.sql.slidingwindow.codegen.{ConcatRow, ProjectionPool}
import org.apache.spark.sql.types.{DataType, DoubleType, FloatType}

/**
 * Initialise, update, merge and evaluate the aggregation buffer of any mix of Catalyst aggregate
 * functions (declarative, imperative, typed imperative such as collect_list or Scala
 * `Aggregator`s), with FILTER clauses: the primitives Two-Stacks needs, driven the way Spark's
 * AggregationIterator drives them.
 *
 * Buffers come in two forms:
 *  - working buffers ([[newBuffer]]): mutable, typed aggregates hold their JVM object;
 *  - frozen partials: immutable [[UnsafeRow]]s, typed aggregates serialized. Only frozen partials
 *    are ever merged into another buffer or kept, so no JVM object is shared.
 *
 * When every function is [[declarative]] (count, sum, min, max, avg, first, last, max_by, ...),
 * the hot operations are single generated projections straight into UnsafeRows: the partial of
 * one row ([[newPartialOfRow]]), the merge of two partials ([[mergePartials]]), and the results
 * of a window from its two parts ([[mergedEvaluateExpressions]]: in [[evaluate]], and in
 * [[org.apache.spark.sql.slidingwindow.execution.WindowRowWriter]] straight into the output row).
 *
 * Merge order is significant (collect_list, first, last): `merge(b, p)` means "b, then p".
 *
 * @param aggregates      the aggregate expressions, in `Complete` semantics (update from rows).
 * @param inputAttributes the attributes of the input rows given to [[update]].
 */
final class AggregateBuffers(aggregates: Seq[AggregateExpression], private val inputAttributes: Seq[Attribute])
  extends Serializable {

  // Where each function's slots start in the buffer (imperative functions are told the same).
  private val offsets: Array[Int] =
    aggregates.map(_.aggregateFunction.aggBufferAttributes.length).scanLeft(0)(_ + _).toArray

  private val functions: Array[AggregateFunction] = {
    var offset = 0
    aggregates.map { ae =>
      val f = ae.aggregateFunction match {
        case ia: ImperativeAggregate =>
          BindReferences.bindReference(ia, inputAttributes)
            .withNewMutableAggBufferOffset(offset)
            .withNewInputAggBufferOffset(offset)
        case other => other
      }
      offset += f.aggBufferAttributes.length
      f
    }.toArray
  }

  // The aggregates up to their result ids, for [[samePartials]].
  private lazy val canonicalAggregates: Seq[Expression] = aggregates.map(_.canonicalized)

  /**
   * Whether `other` computes the same partials from the same rows (the same aggregates, up to
   * their result ids, over the same input): a partial of one is one of the other.
   */
  def samePartials(other: AggregateBuffers): Boolean =
    (this eq other) || (inputAttributes == other.inputAttributes && canonicalAggregates == other.canonicalAggregates)

  /** The buffer's columns, and the same columns as the right-hand side of a merge. */
  val bufferAttributes: Seq[AttributeReference] = functions.toSeq.flatMap(_.aggBufferAttributes)
  val inputBufferAttributes: Seq[AttributeReference] = functions.toSeq.flatMap(_.inputAggBufferAttributes)
  val bufferTypes: Array[DataType] = bufferAttributes.map(_.dataType).toArray
  def numBufferFields: Int = bufferTypes.length

  /** Every function is declarative: its buffers are plain values that expressions compute. */
  val declarative: Boolean = functions.forall(_.isInstanceOf[DeclarativeAggregate])

  /**
   * Working buffers are UnsafeRows updated in place, as in Spark's hash aggregation, when every
   * function is declarative and every buffer field can be set in an UnsafeRow (fixed width or
   * decimal); otherwise SpecificInternalRows, which can also hold JVM objects.
   */
  val unsafeBuffers: Boolean = declarative && bufferTypes.forall(UnsafeRow.isMutable)

  /**
   * Whether a queue of partials should build its aggregates from balanced merges
   * ([[MergeCounter]]) rather than one partial at a time: when a buffer holds a floating-point
   * value, whose merges round (the order of exact merges does not matter), and every buffer has a
   * fixed width, so the counter's few partials in memory stay small.
   */
  val balancedMerges: Boolean =
    unsafeBuffers && bufferTypes.exists(t => t == DoubleType || t == FloatType)

  private def declarativeOr(noOp: AggregateFunction => Seq[Expression])(
      pick: DeclarativeAggregate => Seq[Expression]) =
    functions.toSeq.flatMap {
      case d: DeclarativeAggregate => pick(d)
      case f => noOp(f)
    }

  private val noOps = (f: AggregateFunction) => f.aggBufferAttributes.map(_ => NoOp)

  // FILTER applies to rows (update), never to partials (merge), as in AggregationIterator.
  private val filters = aggregates.map(_.filter)

  private def updateExpressions: Seq[Expression] = functions.toSeq.zip(filters).flatMap {
    case (d: DeclarativeAggregate, None) => d.updateExpressions
    case (d: DeclarativeAggregate, Some(cond)) =>
      d.updateExpressions.zip(d.aggBufferAttributes).map { case (u, a) => If(cond, u, a) }
    case (f, _) => noOps(f)
  }

  private def mergeExpressions: Seq[Expression] = declarativeOr(noOps)(_.mergeExpressions)

  /** Replaces, in one pass, each buffer column of `e` by its expression in `by`. */
  private def substitute(e: Expression, by: Seq[Expression]): Expression = {
    val replacement = bufferAttributes.map(_.exprId).zip(by).toMap
    e.transformUp { case a: AttributeReference if replacement.contains(a.exprId) => replacement(a.exprId) }
  }

  /** Declarative functions only: the results, one per aggregate, over [[bufferAttributes]]. */
  def evaluateExpressions: Seq[Expression] = {
    require(declarative)
    functions.toSeq.map(_.asInstanceOf[DeclarativeAggregate].evaluateExpression)
  }

  /**
   * Declarative functions only: the results of merging two buffers, over [[bufferAttributes]]
   * (the older one) followed by [[inputBufferAttributes]] (the newer one).
   */
  def mergedEvaluateExpressions: Seq[Expression] = evaluateExpressions.map(substitute(_, mergeExpressions))

  @transient private lazy val initProjection =
    ProjectionPool.mutable(declarativeOr(noOps)(_.initialValues))

  @transient private lazy val updateProjection =
    ProjectionPool.mutable(updateExpressions, bufferAttributes ++ inputAttributes)

  @transient private lazy val mergeProjection =
    ProjectionPool.mutable(mergeExpressions, bufferAttributes ++ inputBufferAttributes)

  // Declarative only: the results of a window's two parts, merged and evaluated in one projection.
  @transient private lazy val mergedEvalProjection =
    ProjectionPool.mutable(mergedEvaluateExpressions, bufferAttributes ++ inputBufferAttributes)

  @transient private lazy val evalProjection = ProjectionPool.mutable(
    functions.toSeq.map {
      case d: DeclarativeAggregate => d.evaluateExpression
      case _ => NoOp
    },
    bufferAttributes)

  // Declarative only: the buffer after one update of the initial buffer, from the row alone.
  private def partialOfRowExpressions: Seq[Expression] =
    updateExpressions.map(substitute(_, declarativeOr(noOps)(_.initialValues)))

  @transient private lazy val mergePartialsProjection =
    ProjectionPool.unsafe(mergeExpressions, bufferAttributes ++ inputBufferAttributes)

  @transient private lazy val freezeProjection = ProjectionPool.unsafe(
    bufferTypes.toSeq.zipWithIndex.map { case (t, i) => BoundReference(i, t, nullable = true) })

  @transient private lazy val copyProjection = ProjectionPool.mutable(
    bufferAttributes.zipWithIndex.map { case (a, i) => BoundReference(i, a.dataType, a.nullable) })

  @transient private lazy val imperatives: Array[(ImperativeAggregate, Option[BasePredicate])] =
    functions.zip(filters).collect { case (ia: ImperativeAggregate, f) =>
      (ia, f.map(ProjectionPool.predicate(_, inputAttributes)))
    }

  @transient private lazy val typed: Array[(TypedImperativeAggregate[Any], Int)] =
    functions.zip(offsets).collect { case (t: TypedImperativeAggregate[_], offset) =>
      (t.asInstanceOf[TypedImperativeAggregate[Any]], offset)
    }

  @transient lazy val resultTypes: Seq[DataType] = aggregates.map(_.aggregateFunction.dataType)
  @transient private lazy val imperativeResultIndex: Array[(ImperativeAggregate, Int)] =
    functions.zipWithIndex.collect { case (ia: ImperativeAggregate, i) => (ia, i) }

  @transient private lazy val joined = new ConcatRow
  @transient private lazy val scratch: InternalRow = newBuffer()
  @transient private lazy val result = new SpecificInternalRow(resultTypes)

  // The initial buffer, laid out by an UnsafeProjection (room for every decimal included).
  @transient private lazy val initialUnsafeBuffer: UnsafeRow =
    ProjectionPool.unsafe(declarativeOr(noOps)(_.initialValues))(EmptyRow).copy()

  /** A new, initialised working buffer. */
  def newBuffer(): InternalRow = {
    if (unsafeBuffers) {
      initialUnsafeBuffer.copy()
    } else {
      val buffer = new SpecificInternalRow(bufferTypes.toIndexedSeq)
      initialize(buffer)
      buffer
    }
  }

  /** Resets a working buffer to the initial (empty) aggregate. */
  def initialize(buffer: InternalRow): Unit = {
    initProjection.target(buffer)(EmptyRow)
    var i = 0
    while (i < imperatives.length) { imperatives(i)._1.initialize(buffer); i += 1 }
  }

  /**
   * Adds one input row to a working buffer (FILTER clauses applied). The input row may be reused
   * by its iterator afterwards: Spark's mutable projections copy strings and nested values into
   * the target row, so the buffer owns what it keeps (AggregateBuffersSuite checks it).
   */
  def update(buffer: InternalRow, row: InternalRow): Unit = {
    updateProjection.target(buffer)(joined(buffer, row))
    var i = 0
    while (i < imperatives.length) {
      val (ia, predicate) = imperatives(i)
      if (predicate.isEmpty || predicate.get.eval(row)) ia.update(buffer, row)
      i += 1
    }
  }

  /**
   * With declarative functions only, a projection of its own that turns one row into its frozen
   * partial (each projection reuses its output row: two of them let two partials live at once).
   */
  def newPartialOfRow(): Option[UnsafeProjection] =
    if (declarative) Some(ProjectionPool.unsafe(partialOfRowExpressions, inputAttributes)) else None

  /** Merges a frozen partial into a working buffer: `buffer` followed by `partial`. */
  def merge(buffer: InternalRow, partial: InternalRow): Unit = {
    mergeProjection.target(buffer)(joined(buffer, partial))
    var i = 0
    while (i < imperatives.length) { imperatives(i)._1.merge(buffer, partial); i += 1 }
  }

  /** The frozen partial of `older` followed by `newer`, both frozen partials. Reused row. */
  def mergePartials(older: InternalRow, newer: InternalRow): UnsafeRow = {
    if (declarative) {
      mergePartialsProjection(joined(older, newer))
    } else {
      assign(scratch, older)
      merge(scratch, newer)
      freeze(scratch)
    }
  }

  /** A new working buffer holding `partial`. */
  def materialize(partial: InternalRow): InternalRow = {
    val buffer = newBuffer()
    merge(buffer, partial)
    buffer
  }

  /**
   * Makes a working buffer hold exactly `partial`: initialize + merge, or, when every function is
   * declarative, a plain copy of the slots (merging into the initial buffer is the identity).
   */
  def assign(buffer: InternalRow, partial: InternalRow): Unit = {
    if (imperatives.isEmpty) {
      copyProjection.target(buffer)(partial)
    } else {
      initialize(buffer)
      merge(buffer, partial)
    }
  }

  /** Whether a frozen partial can be evaluated as it is (no serialized typed buffers in it). */
  def partialsEvaluable: Boolean = typed.isEmpty

  /**
   * Turns a working buffer into a frozen partial. The working buffer is spent (typed aggregates
   * serialize in place). Reused row, or the buffer itself when it is an UnsafeRow.
   */
  def freeze(buffer: InternalRow): UnsafeRow = buffer match {
    case unsafe: UnsafeRow => unsafe
    case _ =>
      var i = 0
      while (i < typed.length) { typed(i)._1.serializeAggregateBufferInPlace(buffer); i += 1 }
      freezeProjection(buffer)
  }

  /**
   * A partial equal to a working buffer, to merge into another buffer, leaving the working buffer
   * usable. Valid until the working buffer changes. Without typed aggregates it is the buffer.
   */
  def asPartial(buffer: InternalRow): InternalRow = {
    if (typed.isEmpty) {
      buffer
    } else {
      val copy = new GenericInternalRow(bufferTypes.length)
      var i = 0
      while (i < bufferTypes.length) {
        copy.update(i, if (buffer.isNullAt(i)) null else buffer.get(i, bufferTypes(i)))
        i += 1
      }
      i = 0
      while (i < typed.length) {
        val (t, offset) = typed(i)
        copy.update(offset, t.serialize(buffer.get(offset, null)))
        i += 1
      }
      freezeProjection(copy).copy()
    }
  }

  /** The aggregate results of a working buffer, one column per aggregate. Reused row. */
  def evaluate(buffer: InternalRow): InternalRow = {
    evalProjection.target(result)(buffer)
    var i = 0
    while (i < imperativeResultIndex.length) {
      val (ia, index) = imperativeResultIndex(i)
      result.update(index, ia.eval(buffer))
      i += 1
    }
    result
  }

  /**
   * The aggregate results of a window's two parts (any functions). Reused row. With declarative
   * functions, two parts are merged and evaluated by one projection, into the results row.
   */
  def evaluate(parts: AggregateParts): InternalRow = {
    if (parts.older == null) {
      evaluate(parts.newer)
    } else if (parts.newer == null && partialsEvaluable) {
      evaluate(parts.older)
    } else if (declarative) {
      mergedEvalProjection.target(result)(joined(parts.older, parts.newer))
      result
    } else {
      assign(scratch, parts.older)
      if (parts.newer != null) merge(scratch, asPartial(parts.newer))
      evaluate(scratch)
    }
  }
}
