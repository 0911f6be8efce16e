package org.apache.spark.sql.slidingwindow.state
package trailing

import org.json4s.{DefaultFormats, Formats, JArray, JNothing, JObject, JString, JValue}

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.slidingwindow.expressions.ResolvedName

/**
 * The columns of the rows a streaming trailing windows operator keeps waiting for the watermark,
 * in the order its state holds them (each `` `name` TYPE ``), recorded in its
 * [[WindowOperatorRecord]] (`rows`): the input of the operator, the plain columns of the
 * query's SELECT list with the columns its frames read.
 *
 * Two of them may hold the time of a row: `time`, the TIMESTAMP column with the watermark
 * (`ts`, where the frames are written `ORDER BY ts` or the query selects it), and `order`, the
 * BIGINT `unix_micros(ts)` that Spark computes below the window for the frames of the
 * `trailing_window` helper (`_w0`). Each is computed from the other, so they are not compared:
 * the SQL and the helper forms of a query keep the same rows.
 *
 * A restart may keep the other columns in another order: the planner projects its input into the
 * recorded order, and the operator's output back into the query's
 * ([[org.apache.spark.sql.slidingwindow.planning.TrailingRowsPlan]]). A restart that adds,
 * removes, renames or retypes one is refused: the rows waiting would lack it, or hold another.
 * Names compare as Spark resolves them ([[ResolvedName]]): `K` restarts the state of `k` unless
 * `spark.sql.caseSensitive` is on.
 */
final case class TrailingRows(columns: Seq[String], time: Option[String], order: Option[String]) {
  /** The columns but those of the time. */
  def others: Seq[String] = columns.filterNot(c => time.contains(c) || order.contains(c))

  def json: JValue = JObject(
    "columns" -> JArray(columns.map(JString(_)).toList),
    "time" -> time.map(JString(_)).getOrElse(JNothing),
    "order" -> order.map(JString(_)).getOrElse(JNothing))

  /** The names of the columns, each once: the columns can be found by name. */
  private def namesDistinct(caseSensitive: Boolean): Boolean = {
    val names = columns.map(c => ResolvedName(TrailingRows.nameOf(c), caseSensitive))
    names.distinct.length == names.length
  }

  /** Whether the rows a query keeps as `now` can be read from the state of these rows. */
  def readableAs(now: TrailingRows, caseSensitive: Boolean): Boolean = {
    def resolved(xs: Seq[String]) = xs.map(ResolvedName(_, caseSensitive))
    resolved(columns) == resolved(now.columns) ||
      (resolved(others).sorted == resolved(now.others).sorted && namesDistinct(caseSensitive) &&
        now.namesDistinct(caseSensitive))
  }
}

object TrailingRows {
  private implicit val formats: Formats = DefaultFormats

  /** A column as the record shows it: `` `name` TYPE ``. */
  def column(a: Attribute): String = s"`${a.name.replace("`", "``")}` ${a.dataType.sql}"

  /** The name of a column as [[column]] shows it. */
  def nameOf(column: String): String = column.substring(1, column.lastIndexOf("` ")).replace("``", "`")

  /**
   * The rows of an operator whose input is `input`: `time` the TIMESTAMP column with the
   * watermark, if the input has it; `order` the BIGINT ORDER BY column, `unix_micros` of it, if
   * the frames are ordered by one.
   */
  def of(input: Seq[Attribute], time: Option[Attribute], order: Option[Attribute]): TrailingRows =
    TrailingRows(input.map(column), time.map(column), order.map(column))

  /**
   * A change of the rows from `recorded` to `now` that the state cannot follow: ("input
   * columns", the recorded columns, the query's), each without the time's. None for the
   * windowed aggregation's records, which hold no rows.
   */
  def change(recorded: Option[TrailingRows], now: Option[TrailingRows],
      caseSensitive: Boolean): Option[(String, String, String)] =
    for (before <- recorded; after <- now if !before.readableAs(after, caseSensitive))
      yield ("input columns", before.others.mkString("[", ", ", "]"), after.others.mkString("[", ", ", "]"))

  def fromJson(json: JValue): Option[TrailingRows] = json match {
    case JNothing => None
    case _ => Some(TrailingRows((json \ "columns").extractOpt[List[String]].getOrElse(Nil),
      (json \ "time").extractOpt[String], (json \ "order").extractOpt[String]))
  }
}
