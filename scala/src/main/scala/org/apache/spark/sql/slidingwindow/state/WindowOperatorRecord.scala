package org.apache.spark.sql.slidingwindow.state

import org.json4s.{DefaultFormats, Formats, JArray, JBool, JInt, JNothing, JObject, JString}
import org.json4s.jackson.JsonMethods.{compact, parse, render}

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.slidingwindow.expressions.WindowDefinition

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
 * It also records how the state is arranged ([[WindowStateStorage]]), which a restart keeps.
 *
 * Stored as JSON; fields are compared as the text they show in error messages.
 */
final case class WindowOperatorRecord(
    stateFormatVersion: Int,
    function: String,
    size: String,
    time: String,
    order: Option[String],
    keys: Seq[String],
    aggregates: Seq[String],
    outputMode: Option[String],
    storage: Option[WindowStateStorage] = None) {

  /**
   * The first difference that makes the state of `this` unusable by `query`: (what, the value
   * recorded, the value of `query`).
   */
  def incompatibility(query: WindowOperatorRecord): Option[(String, String, String)] = {
    def list(xs: Seq[String]) = xs.mkString("[", ", ", "]")
    Seq(
      ("window function", function, query.function),
      ("window size", size, query.size),
      ("time column", time, query.time),
      ("order column", order.getOrElse("none"), query.order.getOrElse("none")),
      ("grouping keys", list(keys), list(query.keys)),
      ("aggregate functions", list(aggregates), list(query.aggregates))
    ).find { case (_, recorded, now) => recorded != now }.orElse {
      // Of the output modes, only append -> update loses windows (see above).
      val appendToUpdate = outputMode.contains(WindowOperatorRecord.Append) &&
        query.outputMode.contains(WindowOperatorRecord.Update)
      if (appendToUpdate) Some(("output mode", WindowOperatorRecord.Append, WindowOperatorRecord.Update))
      else None
    }
  }

  /** The record of `query`'s run: this one's, with the query's output mode. */
  def ranIn(query: WindowOperatorRecord): WindowOperatorRecord = copy(outputMode = query.outputMode)

  def withVersion(version: Int): WindowOperatorRecord = copy(stateFormatVersion = version)

  def withStorage(storage: WindowStateStorage): WindowOperatorRecord = copy(storage = Some(storage))

  def json: String = compact(render(JObject(
    "stateFormatVersion" -> JInt(stateFormatVersion),
    "function" -> JString(function),
    "size" -> JString(size),
    "time" -> JString(time),
    "order" -> order.map(JString(_)).getOrElse(JNothing),
    "keys" -> JArray(keys.map(JString(_)).toList),
    "aggregates" -> JArray(aggregates.map(JString(_)).toList),
    "outputMode" -> outputMode.map(JString(_)).getOrElse(JNothing),
    "timeIndex" -> storage.map(s => JBool(s.timeIndex)).getOrElse(JNothing),
    "orderedRows" -> storage.map(s => JBool(s.orderedRows)).getOrElse(JNothing))))
}

object WindowOperatorRecord {
  private implicit val formats: Formats = DefaultFormats

  val Append = "Append"
  val Update = "Update"

  /** The record of a query, for state format `version`. */
  def of(
      version: Int,
      definition: WindowDefinition,
      keys: Seq[Attribute],
      time: Attribute,
      order: Option[Attribute],
      aggregates: Seq[AggregateExpression],
      outputMode: Option[String]): WindowOperatorRecord =
    WindowOperatorRecord(
      version,
      definition.kind.functionName,
      s"'${definition.sizeString}'",
      column(time),
      order.map(column),
      keys.map(column),
      aggregates.map(_.sql),
      outputMode)

  private def column(a: Attribute): String = s"`${a.name}` ${a.dataType.sql}"

  /**
   * Reads a record. Only the version is required: a record written by a later release may have
   * other fields, and its version alone decides whether this release can read the state.
   */
  def fromJson(text: String): WindowOperatorRecord = {
    val json = parse(text)
    def str(field: String): String = (json \ field).extractOpt[String].getOrElse("")
    def strings(field: String): Seq[String] = (json \ field).extractOpt[List[String]].getOrElse(Nil)
    WindowOperatorRecord(
      (json \ "stateFormatVersion").extract[Int],
      str("function"), str("size"), str("time"),
      (json \ "order").extractOpt[String],
      strings("keys"), strings("aggregates"),
      (json \ "outputMode").extractOpt[String],
      // Written since the release that runs on several Spark versions (absent before).
      for (index <- (json \ "timeIndex").extractOpt[Boolean]; ordered <- (json \ "orderedRows").extractOpt[Boolean])
        yield WindowStateStorage(index, ordered))
  }
}
