package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.slidingwindow.state.trailing.TrailingRows

import org.json4s.{DefaultFormats, Formats, JArray, JBool, JInt, JNothing, JObject, JString}
import org.json4s.jackson.JsonMethods.{compact, parse, render}

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.slidingwindow.expressions.{AggregateIdentity, ResolvedName, WindowDefinition}

/**
 * What a streaming windowed aggregation's state was written for, recorded in its checkpoint when
 * the query first starts: the state format version, and what the state's contents depend on.
 * A restart compares the query it runs with the record, and refuses a change that would make the
 * state mean something else (a window size, kind, time or order column, grouping keys, or
 * aggregates, even where the state's types stay the same, as for sum -> max of a long). What
 * the state does not depend on (the SELECT list above the aggregation, a filter after it) may
 * change freely. The output mode of the last run is recorded too: a run in update mode after
 * one in append mode would never emit the windows open at the restart that receive no more
 * rows (update mode emits changed windows only), so that switch is refused; the other way is
 * safe (append mode emits every window when it closes).
 *
 * Aggregates are compared by what they compute ([[AggregateIdentity]]: `aggregateIdentities`,
 * taken from the analyzed query, so that generated names and the Spark version's printing do
 * not count, and flags that SQL text leaves out do), and by the types of the aggregation buffers
 * the state holds (`bufferTypes`). `aggregates` is their SQL text, for messages. A record
 * written before identities were recorded (release 0.1.0 and the first format-2 code) holds the
 * SQL text of the optimized aggregates instead: a restart compares that text with the same text
 * of the restarted query, generated names left out, and records the identities. Identities are
 * written in a form ([[AggregateIdentity.form]], `identityForm`): a record without one holds
 * form 1, that of release 0.2.0, and is compared with the restarted query's identities in that
 * form (`releasedIdentities`, not stored), then upgraded to the current form.
 *
 * It also records how the state is arranged ([[StateArrangement]]), which a restart keeps, and,
 * for trailing windows, the columns of the rows waiting for the watermark in the order the
 * state holds them (`rows`, [[TrailingRows]]): a restart may reorder them, not change them.
 *
 * Stored as JSON; fields are compared as the text they show in error messages.
 * `optimizedAggregates`, the SQL text of a restarted query's optimized aggregates, is not
 * stored: only a record without identities is compared with it. Where the record is, its JSON
 * fields, when it is written and how a restart compares it: docs/state-format.md, section
 * "The operator record".
 */
final case class WindowOperatorRecord(
    stateFormatVersion: Int,
    function: String,
    size: String,
    time: String,
    order: Option[String],
    keys: Seq[String],
    aggregates: Seq[String],
    aggregateIdentities: Option[Seq[String]],
    bufferTypes: Option[Seq[String]],
    outputMode: Option[String],
    arrangement: Option[StateArrangement] = None,
    rows: Option[TrailingRows] = None,
    optimizedAggregates: Seq[String] = Nil,
    identityForm: Option[Int] = Some(AggregateIdentity.form),
    releasedIdentities: Seq[String] = Nil) {
  import WindowOperatorRecord.list

  /**
   * The first difference that makes the state of `this` unusable by `query`: (what, the value
   * recorded, the value of `query`). Columns compare by their names as Spark resolves them
   * ([[ResolvedName]], `caseSensitive` as `spark.sql.caseSensitive`).
   */
  def incompatibility(query: WindowOperatorRecord, caseSensitive: Boolean): Option[(String, String, String)] = {
    val columns = (text: String) => ResolvedName(text, caseSensitive)
    Seq(
      ("window function", function, query.function, identity[String] _),
      ("window size", size, query.size, identity[String] _),
      ("time column", time, query.time, columns),
      ("order column", order.getOrElse("none"), query.order.getOrElse("none"), columns),
      ("grouping keys", list(keys), list(query.keys), columns)
    ).find { case (_, recorded, now, compared) => compared(recorded) != compared(now) }
      .map { case (what, recorded, now, _) => (what, recorded, now) }
      .orElse(TrailingRows.change(rows, query.rows, caseSensitive))
      .orElse(aggregateChange(query))
      .orElse {
        // Of the output modes, only append -> update loses windows (see above).
        val appendToUpdate = outputMode.contains(WindowOperatorRecord.Append) &&
          query.outputMode.contains(WindowOperatorRecord.Update)
        if (appendToUpdate) Some(("output mode", WindowOperatorRecord.Append, WindowOperatorRecord.Update))
        else None
      }
  }

  /**
   * A change of the aggregates: of what one computes, or of the buffers the state holds. When
   * the query has as many aggregates as the record, only those that changed are shown, by
   * position (`#2 first(v)`), each by its SQL text and, where that text did not change, by what
   * it computes.
   */
  private def aggregateChange(query: WindowOperatorRecord): Option[(String, String, String)] = {
    aggregateIdentities match {
      case None =>
        val normalized = (xs: Seq[String]) => xs.map(WindowOperatorRecord.withoutGeneratedNames)
        if (normalized(aggregates) == normalized(query.optimizedAggregates)) None
        else Some(("aggregate functions", list(aggregates), list(query.optimizedAggregates)))
      case Some(recorded) =>
        val now = if (identityForm.contains(AggregateIdentity.form)) query.aggregateIdentities.getOrElse(Nil)
          else query.releasedIdentities
        if (recorded == now) {
          for (before <- bufferTypes; after <- query.bufferTypes if before != after)
            yield ("aggregation buffer types", list(before), list(after))
        } else if (recorded.length != now.length) {
          Some(("aggregate functions", list(aggregates), list(query.aggregates)))
        } else {
          val changed = recorded.indices.filter(i => recorded(i) != now(i))
          def shown(sql: Seq[String], ids: Seq[String]) = list(changed.map { i =>
            val sameText = aggregates(i) == query.aggregates(i)
            s"#${i + 1} ${sql(i)}" + (if (sameText) s" computed as ${ids(i)}" else "")
          })
          Some(("aggregate functions", shown(aggregates, recorded), shown(query.aggregates, now)))
        }
    }
  }

  /**
   * The record of `query`'s run: this one's, with the query's output mode, and what its
   * aggregates compute where this record does not say it in the current form.
   */
  def ranIn(query: WindowOperatorRecord): WindowOperatorRecord =
    if (current) copy(outputMode = query.outputMode)
    else copy(outputMode = query.outputMode, aggregates = query.aggregates,
      aggregateIdentities = query.aggregateIdentities, bufferTypes = query.bufferTypes,
      identityForm = query.identityForm)

  /** Whether the record says what its aggregates compute, in the current form. */
  def current: Boolean = aggregateIdentities.isDefined && identityForm.contains(AggregateIdentity.form)

  def withVersion(version: Int): WindowOperatorRecord = copy(stateFormatVersion = version)

  def withArrangement(arrangement: StateArrangement): WindowOperatorRecord = copy(arrangement = Some(arrangement))

  def json: String = compact(render(JObject(
    "stateFormatVersion" -> JInt(stateFormatVersion),
    "function" -> JString(function),
    "size" -> JString(size),
    "time" -> JString(time),
    "order" -> order.map(JString(_)).getOrElse(JNothing),
    "keys" -> JArray(keys.map(JString(_)).toList),
    "aggregates" -> JArray(aggregates.map(JString(_)).toList),
    "aggregateIdentities" -> aggregateIdentities.map(ids => JArray(ids.map(JString(_)).toList)).getOrElse(JNothing),
    "identityForm" -> identityForm.filter(_ => aggregateIdentities.isDefined).map(JInt(_)).getOrElse(JNothing),
    "bufferTypes" -> bufferTypes.map(ts => JArray(ts.map(JString(_)).toList)).getOrElse(JNothing),
    "outputMode" -> outputMode.map(JString(_)).getOrElse(JNothing),
    "timeIndex" -> arrangement.map(s => JBool(s.timeIndex)).getOrElse(JNothing),
    "orderedRows" -> arrangement.map(s => JBool(s.orderedRows)).getOrElse(JNothing),
    "rows" -> rows.map(_.json).getOrElse(JNothing))))
}

object WindowOperatorRecord {
  private implicit val formats: Formats = DefaultFormats

  val Append = "Append"
  val Update = "Update"

  /**
   * The record of a query, for state format `version`: `aggregates` are its aggregate columns,
   * `optimized` the aggregate functions its state holds the buffers of, in that order.
   */
  def of(
      version: Int,
      definition: WindowDefinition,
      keys: Seq[Attribute],
      time: Attribute,
      order: Option[Attribute],
      aggregates: Seq[AggregateIdentity],
      optimized: Seq[AggregateExpression],
      outputMode: Option[String]): WindowOperatorRecord =
    WindowOperatorRecord(
      version,
      definition.kind.functionName,
      s"'${definition.sizeString}'",
      column(time),
      order.map(column),
      keys.map(column),
      aggregates.map(_.sql),
      Some(aggregates.map(_.computes)),
      Some(optimized.flatMap(_.aggregateFunction.aggBufferAttributes.map(_.dataType.sql))),
      outputMode,
      optimizedAggregates = optimized.map(_.sql),
      releasedIdentities = aggregates.map(_.released))

  val trailingFunction = "trailing windows"

  /**
   * The record of streaming trailing windows, state format `version`: what their state holds
   * depends on the partition keys, the time and the largest frame's size (rows are kept that
   * long) and, as it keeps each frame's partial aggregates, on the frames and their aggregates
   * (`frames`: each column's SQL text, what it computes with its frame, and the types of its
   * buffers), arranged as `arrangement` when the query starts (a time index of the groups'
   * expiry, or a scan). No release wrote a trailing record in an earlier identity form: it has none to
   * compare by.
   */
  def trailing(version: Int, largestSize: String, time: String, keys: Seq[String],
      outputMode: Option[String], frames: Seq[TrailingFrameRecord], arrangement: StateArrangement): WindowOperatorRecord =
    WindowOperatorRecord(version, trailingFunction, s"'$largestSize'", s"`$time`", None, keys,
      frames.map(_.sql), Some(frames.map(_.computes)), Some(frames.flatMap(_.bufferTypes)), outputMode,
      Some(arrangement))

  /** What a trailing frame's column computes, for the record: see [[trailing]]. */
  final case class TrailingFrameRecord(sql: String, computes: String, bufferTypes: Seq[String])

  /**
   * The SQL text of an optimized aggregate without the names the optimizer generates per JVM
   * (`_common_expr_3` of Spark 4's `With` rewrite): the form records were compared in before
   * they held identities.
   */
  private def list(xs: Seq[String]): String = xs.mkString("[", ", ", "]")

  def withoutGeneratedNames(sql: String): String = sql.replaceAll("_common_expr_[0-9]+", "_common_expr_")

  private def column(a: Attribute): String = s"`${a.name}` ${a.dataType.sql}"

  /**
   * Reads a record. Only the version is required: a record written by a later release may have
   * other fields, and its version alone decides whether this release can read the state.
   */
  def fromJson(text: String): WindowOperatorRecord = {
    val json = parse(text)
    def str(field: String): String = (json \ field).extractOpt[String].getOrElse("")
    def strings(field: String): Seq[String] = (json \ field).extractOpt[List[String]].getOrElse(Nil)
    // json4s reads a missing field as an empty list: absent is None, as records before it.
    def optionalStrings(field: String): Option[Seq[String]] =
      if (json \ field == JNothing) None else Some(strings(field))
    val record = WindowOperatorRecord(
      (json \ "stateFormatVersion").extract[Int],
      str("function"), str("size"), str("time"),
      (json \ "order").extractOpt[String],
      strings("keys"), strings("aggregates"),
      optionalStrings("aggregateIdentities"),
      optionalStrings("bufferTypes"),
      (json \ "outputMode").extractOpt[String],
      // Written since the release that runs on several Spark versions (absent before).
      for (index <- (json \ "timeIndex").extractOpt[Boolean]; ordered <- (json \ "orderedRows").extractOpt[Boolean])
        yield StateArrangement(index, ordered),
      // Written since identity form 2 (absent: form 1, release 0.2.0).
      identityForm = (json \ "identityForm").extractOpt[Int])
    // Trailing windows' (absent from the windowed aggregation's).
    record.copy(rows = TrailingRows.fromJson(json \ "rows"))
  }
}
