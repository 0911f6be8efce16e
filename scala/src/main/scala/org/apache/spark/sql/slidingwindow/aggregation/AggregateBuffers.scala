package org.apache.spark.sql.slidingwindow.aggregation

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BasePredicate, BindReferences, BoundReference, EmptyRow, GenericInternalRow, If, JoinedRow, MutableProjection, Predicate, SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, AggregateFunction, DeclarativeAggregate, ImperativeAggregate, NoOp, TypedImperativeAggregate}
import org.apache.spark.sql.types.DataType

/**
 * Initialise, update, merge and evaluate the aggregation buffer of any mix of Catalyst aggregate
 * functions (declarative, imperative, typed imperative such as collect_list or Scala
 * `Aggregator`s), with FILTER clauses: the four primitives Two-Stacks needs, in the same way
 * Spark's AggregationIterator drives them.
 *
 * Buffers come in two forms:
 *  - working buffers ([[newBuffer]]): mutable, typed aggregates hold their JVM object;
 *  - frozen partials ([[freeze]]): immutable [[UnsafeRow]]s, typed aggregates serialized. Only
 *    frozen partials are ever merged into another buffer or kept, so no JVM object is shared.
 *
 * Merge order is significant (collect_list, first, last): `merge(b, p)` means "b, then p".
 *
 * @param aggregates      the aggregate expressions, in `Complete` semantics (update from rows).
 * @param inputAttributes the attributes of the input rows given to [[update]].
 */
final class AggregateBuffers(aggregates: Seq[AggregateExpression], inputAttributes: Seq[Attribute])
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

  private val bufferAttributes = functions.toSeq.flatMap(_.aggBufferAttributes)
  private val inputBufferAttributes = functions.toSeq.flatMap(_.inputAggBufferAttributes)
  val bufferTypes: Array[DataType] = bufferAttributes.map(_.dataType).toArray

  private def declarativeOr(noOp: AggregateFunction => Seq[org.apache.spark.sql.catalyst.expressions.Expression])(
      pick: DeclarativeAggregate => Seq[org.apache.spark.sql.catalyst.expressions.Expression]) =
    functions.toSeq.flatMap {
      case d: DeclarativeAggregate => pick(d)
      case f => noOp(f)
    }

  private val noOps = (f: AggregateFunction) => f.aggBufferAttributes.map(_ => NoOp)

  // FILTER applies to rows (update), never to partials (merge), as in AggregationIterator.
  private val filters = aggregates.map(_.filter)

  @transient private lazy val initProjection =
    MutableProjection.create(declarativeOr(noOps)(_.initialValues))

  @transient private lazy val updateProjection = MutableProjection.create(
    functions.toSeq.zip(filters).flatMap {
      case (d: DeclarativeAggregate, None) => d.updateExpressions
      case (d: DeclarativeAggregate, Some(cond)) =>
        d.updateExpressions.zip(d.aggBufferAttributes).map { case (u, a) => If(cond, u, a) }
      case (f, _) => noOps(f)
    },
    bufferAttributes ++ inputAttributes)

  @transient private lazy val mergeProjection = MutableProjection.create(
    declarativeOr(noOps)(_.mergeExpressions), bufferAttributes ++ inputBufferAttributes)

  @transient private lazy val evalProjection = MutableProjection.create(
    functions.toSeq.map {
      case d: DeclarativeAggregate => d.evaluateExpression
      case _ => NoOp
    },
    bufferAttributes)

  @transient private lazy val freezeProjection = UnsafeProjection.create(bufferTypes)

  @transient private lazy val copyProjection = MutableProjection.create(
    bufferAttributes.zipWithIndex.map { case (a, i) => BoundReference(i, a.dataType, a.nullable) })

  @transient private lazy val imperatives: Array[(ImperativeAggregate, Option[BasePredicate])] =
    functions.zip(filters).collect { case (ia: ImperativeAggregate, f) =>
      (ia, f.map(Predicate.create(_, inputAttributes)))
    }

  @transient private lazy val typed: Array[(TypedImperativeAggregate[Any], Int)] =
    functions.zip(offsets).collect { case (t: TypedImperativeAggregate[_], offset) =>
      (t.asInstanceOf[TypedImperativeAggregate[Any]], offset)
    }

  @transient private lazy val resultTypes = aggregates.map(_.aggregateFunction.dataType)
  @transient private lazy val imperativeResultIndex: Array[(ImperativeAggregate, Int)] =
    functions.zipWithIndex.collect { case (ia: ImperativeAggregate, i) => (ia, i) }

  @transient private lazy val joined = new JoinedRow

  /** A new, initialised working buffer. */
  def newBuffer(): InternalRow = {
    val buffer = new SpecificInternalRow(bufferTypes.toIndexedSeq)
    initialize(buffer)
    buffer
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

  /** Merges a frozen partial into a working buffer: `buffer` followed by `partial`. */
  def merge(buffer: InternalRow, partial: InternalRow): Unit = {
    mergeProjection.target(buffer)(joined(buffer, partial))
    var i = 0
    while (i < imperatives.length) { imperatives(i)._1.merge(buffer, partial); i += 1 }
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

  /** Turns a working buffer into an immutable partial. The working buffer is spent. */
  def freeze(buffer: InternalRow): UnsafeRow = {
    var i = 0
    while (i < typed.length) { typed(i)._1.serializeAggregateBufferInPlace(buffer); i += 1 }
    freezeProjection(buffer).copy()
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

  @transient private lazy val result = new SpecificInternalRow(resultTypes)
}
