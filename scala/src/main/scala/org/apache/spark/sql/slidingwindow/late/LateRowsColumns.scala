package org.apache.spark.sql.slidingwindow.late

import java.util.Locale

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType, TimestampType}

/**
 * The columns of a late-rows table (docs/streaming.md, "Late rows as data"): the input columns
 * the operator received, then why each row is there.
 *  - `late_batch_id` BIGINT: the micro-batch that dropped the row;
 *  - `late_watermark` TIMESTAMP: the watermark the row's time was at or before;
 *  - `late_operator` STRING: the window function whose operator dropped it ([[sliding]], [[trailing]]);
 *  - `late_operator_id` BIGINT: that operator's id in the query's checkpoint (as the state
 *    data source's `operatorId`), which tells two such operators of one query apart;
 *  - `late_reason` STRING: [[behindWatermark]], or [[closedWhileIdle]].
 */
object LateRowsColumns {
  val metadata: StructType = StructType(Seq(
    StructField("late_batch_id", LongType, nullable = false),
    StructField("late_watermark", TimestampType, nullable = false),
    StructField("late_operator", StringType, nullable = false),
    StructField("late_operator_id", LongType, nullable = false),
    StructField("late_reason", StringType, nullable = false)))

  /** The operators, as `late_operator` names them. */
  val sliding = "sliding_window"
  val trailing = "trailing_window"

  /** The row's time is at or before Spark's watermark for late rows. */
  val behindWatermark = "watermark"
  /**
   * The row's time is after Spark's watermark but at or before what the operator emitted while
   * the input was quiet (docs/streaming.md, "When the stream goes quiet").
   */
  val closedWhileIdle = "idle_close"

  /** A column of the table from the operator's input: its ordinal there, and the table's field. */
  final case class Written(ordinal: Int, field: StructField)

  /**
   * The input columns written: all of the operator's input but the columns Spark computes for a
   * window specification (`_w0`, `_w1`, ...: an ORDER BY or PARTITION BY expression), which no
   * query of the user reads; except the time of trailing windows (`time`: the ORDER BY column
   * and the name of the TIMESTAMP column it is `unix_micros` of), written as that column where
   * the input does not have it: each late row keeps its time.
   */
  def written(input: Seq[Attribute], time: Option[(Expression, String)] = None): Seq[Written] = {
    val names = input.map(_.name.toLowerCase(Locale.ROOT)).toSet
    input.zipWithIndex.flatMap { case (a, i) =>
      if (!a.name.matches("_w[0-9]+")) Some(Written(i, StructField(a.name, a.dataType, nullable = true)))
      else time.collect { case (t: Attribute, name) if t.exprId == a.exprId && !names.contains(name.toLowerCase(Locale.ROOT)) =>
        Written(i, StructField(name, TimestampType, nullable = true))
      }
    }
  }

  /**
   * The columns written where a split takes the late rows out before the operator's shuffle
   * ([[org.apache.spark.sql.slidingwindow.logical.LateRowsSplit]]): every column of the query's
   * `withWatermark` (`whole`), at its ordinal in the split's `input`.
   */
  def whole(input: Seq[Attribute], whole: Seq[Attribute]): Seq[Written] = whole.map { a =>
    Written(input.indexWhere(_.exprId == a.exprId), StructField(a.name, a.dataType, nullable = true))
  }

  /**
   * The table's schema for the `written` columns: theirs, nullable (a Parquet table's columns
   * are), each of the type the table holds it as ([[LateRowsTypes]]), then [[metadata]]. Two
   * columns of one name (case-insensitive, as the catalog compares them), and a column of a type
   * the table cannot hold, are refused, naming the fix: `whole` where the columns are those of the
   * query's `withWatermark` ([[whole]]), else the operator's input.
   */
  def schema(table: String, operator: String, written: Seq[Written], whole: Boolean = false): StructType = {
    val names = written.map(_.field.name)
    val clashes = (names ++ metadata.fieldNames).groupBy(_.toLowerCase(Locale.ROOT))
      .filter(_._2.size > 1).keys.toSeq.sorted
    if (clashes.nonEmpty) {
      WindowErrors.lateRowsColumnClash(table, operator, names,
        clashes.map(c => s"`$c`").mkString(", ") + (if (clashes.size > 1) " are each" else " is") + " named twice",
        if (whole) "before withWatermark" else "before the window")
    }
    StructType(written.map(w => stored(table, operator, w.field)) ++ metadata.fields)
  }

  /** `field` with the type the table holds it as ([[LateRowsTypes]]); one it cannot hold is refused. */
  private def stored(table: String, operator: String, field: StructField): StructField =
    LateRowsTypes.stored(field.dataType) match {
      case Right(t) => field.copy(dataType = t)
      case Left(part) => WindowErrors.lateRowsUnsupportedType(table, operator, field.name, field.dataType.sql, part.sql)
    }

  /** A schema as the errors show it: `(name TYPE, ...)`. */
  def describe(schema: StructType): String = schema.fields.map(f => s"${f.name} ${f.dataType.sql}").mkString("(", ", ", ")")
}
