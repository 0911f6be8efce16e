package org.apache.spark.sql.slidingwindow.harness

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, AggregateFunction, CollectList, Complete, Count, Max, Sum}

/**
 * What the harness's operators aggregate over each window or frame, and the same by brute force
 * over the rows a reference puts in it: count(1), sum(v), max(v) (declarative, the operators'
 * generated paths) and collect_list(id) (imperative, serialized in the state), which names the
 * rows (compared sorted: an aggregate's order of equal times is not the contract's).
 */
final case class Aggregated(count: Long, sum: Option[Long], max: Option[Long], ids: Seq[Int]) {
  override def toString: String =
    s"n=$count sum=${sum.getOrElse("null")} max=${max.getOrElse("null")} ids=${ids.mkString("[", ",", "]")}"
}

object Aggregated {
  /** The functions, in this order; `max` is left out of the trailing frames' (three per frame are enough). */
  def functions(withMax: Boolean): Seq[AggregateFunction] =
    Seq(Count(Seq(Literal(1))), Sum(InputRow.v)) ++ (if (withMax) Seq(Max(InputRow.v)) else Nil) :+ CollectList(InputRow.id)

  def expressions(withMax: Boolean): Seq[AggregateExpression] =
    functions(withMax).map(AggregateExpression(_, Complete, isDistinct = false))

  /** By brute force, over `rows`. */
  def of(rows: Seq[InputRow], withMax: Boolean): Aggregated = {
    val values = rows.flatMap(_.v)
    Aggregated(rows.size.toLong, values.reduceOption(_ + _), if (withMax) values.reduceOption(_ max _) else None,
      rows.map(_.id).sorted)
  }

  /** Read from an operator's output row, the functions' results from ordinal `at` on. */
  def read(row: InternalRow, at: Int, withMax: Boolean): Aggregated = {
    def opt(i: Int) = if (row.isNullAt(i)) None else Some(row.getLong(i))
    val list = if (withMax) at + 3 else at + 2
    Aggregated(row.getLong(at), opt(at + 1), if (withMax) opt(at + 2) else None,
      row.getArray(list).toIntArray().toSeq.sorted)
  }
}
