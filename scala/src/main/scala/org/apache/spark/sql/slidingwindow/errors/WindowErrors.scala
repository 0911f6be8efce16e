package org.apache.spark.sql.slidingwindow.errors

import org.apache.spark.sql.AnalysisException

/**
 * Every user-facing error of the extension. Each one has an error condition of
 * [[WindowErrorConditions]] (`getCondition`, `getSqlState`), whose message says what to change.
 * They are [[AnalysisException]]s raised while the query is analysed or planned, except
 * [[boundsOverflow]], an `ArithmeticException` raised while the query runs.
 */
object WindowErrors {

  private def fail(condition: String, parameters: (String, String)*): Nothing =
    throw new WindowAnalysisException(condition, parameters.toMap)

  def invalidSize(function: String, got: String, reason: String): Nothing =
    fail("WINDOW_INVALID_SIZE.INVALID_DURATION",
      "function" -> function, "size" -> got, "reason" -> reason)

  def nonConstantSize(function: String, got: String): Nothing =
    fail("WINDOW_INVALID_SIZE.NOT_CONSTANT", "function" -> function, "size" -> got)

  def invalidTimeColumn(function: String, column: String, dataType: String): Nothing =
    fail("WINDOW_INVALID_TIME_COLUMN",
      "function" -> function, "column" -> column, "dataType" -> dataType)

  def invalidOrderColumn(function: String, column: String, dataType: String): Nothing =
    fail("WINDOW_INVALID_ORDER_COLUMN",
      "function" -> function, "column" -> column, "dataType" -> dataType)

  def wrongNumberOfArguments(function: String, expected: String, usage: String, got: Int): Nothing =
    fail("WINDOW_WRONG_NUM_ARGS.WRONG_COUNT",
      "function" -> function, "expected" -> expected, "actual" -> got.toString, "usage" -> usage)

  def namedArguments(function: String, usage: String): Nothing =
    fail("WINDOW_WRONG_NUM_ARGS.NAMED_ARGUMENTS", "function" -> function, "usage" -> usage)

  def outsideGroupBy(function: String, operator: String): Nothing =
    fail("WINDOW_FUNCTION_NOT_IN_GROUP_BY.OUTSIDE_GROUP_BY",
      "function" -> function, "operator" -> operator)

  def windowNotGrouped(function: String, expression: String): Nothing =
    fail("WINDOW_FUNCTION_NOT_IN_GROUP_BY.NOT_THE_GROUPED_WINDOW",
      "function" -> function, "expression" -> expression)

  def nested(function: String, expression: String): Nothing =
    fail("WINDOW_FUNCTION_NESTED.IN_EXPRESSION", "function" -> function, "expression" -> expression)

  def insideAggregate(function: String, expression: String): Nothing =
    fail("WINDOW_FUNCTION_NESTED.IN_AGGREGATE", "function" -> function, "expression" -> expression)

  def multipleWindows(windows: Seq[String]): Nothing =
    fail("WINDOW_FUNCTION_MULTIPLE", "windows" -> windows.mkString(", "))

  def groupingSets(function: String): Nothing =
    fail("WINDOW_FUNCTION_GROUPING_SETS", "function" -> function)

  def pivot(function: String): Nothing =
    fail("WINDOW_FUNCTION_PIVOT", "function" -> function)

  def correlated(function: String, outer: String): Nothing =
    fail("WINDOW_FUNCTION_CORRELATED", "function" -> function, "outerReference" -> outer)

  def distinctAggregate(function: String, aggregate: String): Nothing =
    fail("WINDOW_UNSUPPORTED_AGGREGATE.DISTINCT", "function" -> function, "aggregate" -> aggregate)

  def unsupportedAggregate(function: String, aggregate: String): Nothing =
    fail("WINDOW_UNSUPPORTED_AGGREGATE.NOT_IN_JVM", "function" -> function, "aggregate" -> aggregate)

  def completeModeNotSupported(function: String): Nothing =
    fail("WINDOW_STREAMING_COMPLETE_MODE", "function" -> function)

  /**
   * A streaming query restarted from a checkpoint whose state was written in a format version
   * this release does not know.
   */
  def stateFormatUnsupported(version: Int, supported: Seq[Int]): Nothing =
    fail("WINDOW_STATE_FORMAT_UNSUPPORTED",
      "version" -> version.toString, "supportedVersions" -> supported.mkString(", "))

  /**
   * A streaming query restarted from a checkpoint with a changed window aggregation: `what`
   * changed (the window size, kind or order column, the grouping keys, the aggregates) from
   * `before` (in the checkpoint) to `after` (in the restarted query).
   */
  def incompatibleRestart(what: String, before: String, after: String): Nothing =
    fail("WINDOW_STATE_INCOMPATIBLE_RESTART", "change" -> what, "before" -> before, "after" -> after)

  /** On restart: the checkpoint's state was written in a layout this release does not know. */
  def stateFormatUnsupported(function: String, version: Int, supported: Seq[Int], checkpoint: String): Nothing =
    fail("WINDOW_STATE_FORMAT_UNSUPPORTED",
      s"The checkpoint $checkpoint holds the state of a $function aggregation in state format " +
        s"version $version, but this release of sliding-window-agg reads versions " +
        s"${supported.mkString(", ")}. It was written by a later release: run the query with that " +
        "release (or a later one), or start it from a new checkpoint location.")

  /** On restart: the query changed something its state depends on. */
  def incompatibleRestart(function: String, what: String, before: String, after: String, checkpoint: String): Nothing =
    fail("WINDOW_STATE_INCOMPATIBLE_RESTART",
      s"The streaming query restarted from the checkpoint $checkpoint changed the $what of its " +
        s"$function aggregation from $before to $after. Its state was written for the previous " +
        "query and would give wrong windows: start the changed query from a new checkpoint " +
        "location, or restart the previous query.")

  /** At run time: a row whose windows' bounds fall outside the 64-bit microsecond range. */
  def boundsOverflow(function: String, time: Long, sizeMicros: Long): ArithmeticException =
    new WindowArithmeticException("WINDOW_BOUNDS_OVERFLOW",
      Map("function" -> function, "time" -> time.toString, "size" -> sizeMicros.toString))
}
