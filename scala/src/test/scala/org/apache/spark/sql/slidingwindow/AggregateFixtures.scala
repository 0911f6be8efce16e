package org.apache.spark.sql.slidingwindow

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression, GenericInternalRow, Literal}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, AggregateFunction, CollectList, Complete, Count, First, Last, Max, Sum}
import org.apache.spark.sql.slidingwindow.aggregation.{AggregateBuffers, AggregateParts, WindowContents}
import org.apache.spark.sql.slidingwindow.execution.WindowRowWriter
import org.apache.spark.sql.slidingwindow.expressions.WindowFunction
import org.apache.spark.sql.types.{IntegerType, LongType, TimestampType}

/**
 * Shared test fixture (not a suite): input rows (t, v, id), a standard set of aggregates built by
 * hand as the analyzer would (children are attributes of the input), and a brute-force evaluation
 * of those aggregates over a list of rows, to compare with what the buffers compute.
 */
object AggregateFixtures {
  QuietCodegenLogs()

  val time: AttributeReference = AttributeReference("t", LongType, nullable = false)()
  val value: AttributeReference = AttributeReference("v", LongType, nullable = true)()
  val id: AttributeReference = AttributeReference("id", IntegerType, nullable = false)()
  val input: Seq[AttributeReference] = Seq(time, value, id)

  def agg(f: AggregateFunction, filter: Option[Expression] = None): AggregateExpression =
    AggregateExpression(f, Complete, isDistinct = false, filter)

  /** count(1), sum(v), max(v), collect_list(id), first(id), last(id). */
  val standard: Seq[AggregateExpression] = Seq(
    agg(Count(Seq(Literal(1)))), agg(Sum(value)), agg(Max(value)),
    agg(CollectList(id)), agg(new First(id)), agg(new Last(id)))

  def standardBuffers(): AggregateBuffers = new AggregateBuffers(standard, input)

  /**
   * count(1), sum(v), max(v), first(id), last(id): declarative functions only, which take the
   * generated fast paths (one projection per partial, merge, and window row). Results read as
   * [[Result]]s with no `ids`.
   */
  val declarative: Seq[AggregateExpression] = Seq(
    agg(Count(Seq(Literal(1)))), agg(Sum(value)), agg(Max(value)), agg(new First(id)), agg(new Last(id)))

  /** A set of aggregates, how to read its results, and what they should be. */
  case class AggregateSet(name: String, aggregates: Seq[AggregateExpression]) {
    private val typed = aggregates.size == standard.size
    def buffers(): AggregateBuffers = new AggregateBuffers(aggregates, input)
    def read(r: InternalRow): Result =
      if (typed) result(r)
      else Result(r.getLong(0), opt(r, 1, r.getLong), opt(r, 2, r.getLong), Nil,
        opt(r, 3, r.getInt), opt(r, 4, r.getInt))
    def expect(rows: Seq[Row]): Result = if (typed) expected(rows) else expected(rows).copy(ids = Nil)

    /**
     * The results of a window's contents, computed both ways: evaluated by the buffers, and
     * as the output row the operators write (generated from the two parts when declarative).
     */
    def evaluateBothWays(buffers: AggregateBuffers, contents: WindowContents): (Result, Result) = {
      val parts = new AggregateParts
      contents.aggregate(parts)
      val evaluated = read(buffers.evaluate(parts))
      val row = writer(buffers).write(InternalRow.empty, 0L, 1L, contents)
      val results = new GenericInternalRow(aggregates.map(_.aggregateFunction.dataType).zipWithIndex
        .map { case (t, i) => row.get(i + 1, t) }.toArray[Any])
      (evaluated, read(results))
    }

    private val writers = scala.collection.mutable.Map.empty[AggregateBuffers, WindowRowWriter]
    private def writer(buffers: AggregateBuffers): WindowRowWriter = writers.getOrElseUpdate(buffers, {
      val window = AttributeReference("w", WindowFunction.windowType(TimestampType))()
      val results = aggregates.map(_.resultAttribute)
      new WindowRowWriter(Nil, window, results, window +: results, buffers)
    })
  }

  private def opt[T](r: InternalRow, i: Int, get: Int => T): Option[T] =
    if (r.isNullAt(i)) None else Some(get(i))

  val standardSet: AggregateSet = AggregateSet("with typed aggregates", standard)
  val declarativeSet: AggregateSet = AggregateSet("declarative only", declarative)
  val aggregateSets: Seq[AggregateSet] = Seq(standardSet, declarativeSet)

  /** One input row; `v` may be null (None). */
  case class Row(t: Long, v: Option[Long], id: Int) {
    def internal: InternalRow = InternalRow(t, v.map(Long.box).orNull, id)
  }

  /** The results of [[standard]], copied out of the (reused) evaluation row. */
  case class Result(count: Long, sum: Option[Long], max: Option[Long], ids: Seq[Int],
      first: Option[Int], last: Option[Int])

  def result(r: InternalRow): Result = Result(
    count = r.getLong(0),
    sum = if (r.isNullAt(1)) None else Some(r.getLong(1)),
    max = if (r.isNullAt(2)) None else Some(r.getLong(2)),
    ids = r.getArray(3).toIntArray().toSeq,
    first = if (r.isNullAt(4)) None else Some(r.getInt(4)),
    last = if (r.isNullAt(5)) None else Some(r.getInt(5)))

  /** Brute force: the results of [[standard]] over `rows`, taken in the order given. */
  def expected(rows: Seq[Row]): Result = {
    val values = rows.flatMap(_.v)
    Result(rows.size.toLong, values.reduceOption(_ + _), values.reduceOption(_ max _),
      rows.map(_.id), rows.headOption.map(_.id), rows.lastOption.map(_.id))
  }

  /** The frozen partial of `rows` (all at one time), updated in order; a copy. */
  def partialOf(buffers: AggregateBuffers, rows: Seq[Row]): InternalRow = {
    val buffer = buffers.newBuffer()
    rows.foreach(r => buffers.update(buffer, r.internal))
    buffers.freeze(buffer).copy()
  }
}

/** Generated-code INFO lines drown the suites' output: after Spark's logging set-up, raise their level. */
private object QuietCodegenLogs extends org.apache.spark.internal.Logging {
  def apply(): Unit = {
    initializeLogIfNecessary(false)
    org.apache.logging.log4j.core.config.Configurator.setLevel(
      "org.apache.spark.sql.catalyst.expressions.codegen", org.apache.logging.log4j.Level.WARN)
  }
}
