package org.apache.spark.sql.slidingwindow.errors

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.trees.Origin

/**
 * Every user-facing error of the extension. Each one is an [[AnalysisException]] raised while the
 * query is analysed, and its message says what to change. The `[CONDITION]` prefix mirrors Spark's
 * own error messages so that users can search for it.
 *
 * Spark's error conditions are a closed list (error-conditions.json), and PySpark renders an
 * exception through its condition, so the exception carries Spark's free-text analysis condition
 * and our condition name leads the message.
 */
object WindowErrors {

  /** Spark's analysis error condition whose message template is just `<errorMessage>`. */
  val sparkCondition = "_LEGACY_ERROR_TEMP_1332"

  private def fail(condition: String, message: String, origin: Origin = Origin()): Nothing = {
    throw new AnalysisException(
      sparkCondition, Map("errorMessage" -> s"[$condition] $message"), origin)
  }

  def invalidSize(function: String, got: String, reason: String): Nothing =
    fail("WINDOW_INVALID_SIZE",
      s"The `size` argument of $function must be a positive, fixed-length duration such as " +
        s"'10 seconds' or INTERVAL 5 MINUTES, but got $got: $reason.")

  def nonConstantSize(function: String, got: String): Nothing =
    fail("WINDOW_INVALID_SIZE",
      s"The `size` argument of $function must be a constant (a string such as '10 seconds' " +
        s"or an interval literal), but got the expression $got.")

  def invalidTimeColumn(function: String, column: String, dataType: String): Nothing =
    fail("WINDOW_INVALID_TIME_COLUMN",
      s"The time column of $function must be of type TIMESTAMP or TIMESTAMP_NTZ, but $column " +
        s"is of type $dataType. Cast it first, for example $function(CAST($column AS TIMESTAMP), ...).")

  def invalidOrderColumn(function: String, column: String, dataType: String): Nothing =
    fail("WINDOW_INVALID_ORDER_COLUMN",
      s"The `order` argument of $function must be a column that can be sorted (a number, " +
        s"string, timestamp, ...), but $column is of type $dataType. Pass the column that gives " +
        s"the arrival order of the rows, such as a source offset.")

  def wrongNumberOfArguments(function: String, expected: String, usage: String, got: Int): Nothing =
    fail("WINDOW_WRONG_NUM_ARGS",
      s"$function takes $expected arguments, but got $got. Usage: $usage.")

  def outsideGroupBy(function: String, operator: String): Nothing =
    fail("WINDOW_FUNCTION_NOT_IN_GROUP_BY",
      s"$function can only be used in the GROUP BY list of an aggregation (and in the SELECT " +
        s"list of that aggregation), like session_window; it was found in $operator. " +
        s"Write GROUP BY ..., $function(time, size) and select it from there.")

  def nested(function: String, expression: String): Nothing =
    fail("WINDOW_FUNCTION_NESTED",
      s"$function must be a grouping expression on its own, not nested inside another " +
        s"expression ($expression). Group by $function(time, size) and compute on its result " +
        s"in the SELECT list instead.")

  def insideAggregate(function: String, expression: String): Nothing =
    fail("WINDOW_FUNCTION_NESTED",
      s"$function cannot be used inside the aggregate function $expression. Group by " +
        s"$function(time, size) instead.")

  def multipleWindows(windows: Seq[String]): Nothing =
    fail("WINDOW_FUNCTION_MULTIPLE",
      s"An aggregation can be grouped by only one window function, but this one uses " +
        s"${windows.mkString(", ")}. Keep one of them, or aggregate in two steps.")

  def groupingSets(function: String): Nothing =
    fail("WINDOW_FUNCTION_GROUPING_SETS",
      s"$function cannot be used with GROUPING SETS, CUBE or ROLLUP. Write one aggregation " +
        s"per grouping set, each grouped by its keys and $function(time, size), and combine " +
        s"them with UNION ALL.")

  def pivot(function: String): Nothing =
    fail("WINDOW_FUNCTION_PIVOT",
      s"pivot() cannot be used with $function here: Spark computes this pivot in two " +
        s"aggregations, the first one grouped by the pivot column too, which would give each " +
        s"pivot value windows of its own. Write one aggregate per pivot value with a FILTER " +
        s"clause instead, such as sum(v) FILTER (WHERE k = 'a') AS a, grouped by $function(time, size).")

  def correlated(function: String, outer: String): Nothing =
    fail("WINDOW_FUNCTION_CORRELATED",
      s"$function cannot be used in a correlated subquery: the rows it groups refer to $outer " +
        s"of the outer query. Compute the windowed aggregation on its own and join it with the " +
        s"outer query on the keys instead.")

  def namedArguments(function: String, usage: String): Nothing =
    fail("WINDOW_WRONG_NUM_ARGS",
      s"$function does not take named arguments. Pass its arguments by position: $usage.")

  def windowNotGrouped(function: String, expression: String): Nothing =
    fail("WINDOW_FUNCTION_NOT_IN_GROUP_BY",
      s"The SELECT list uses $expression, which is not the window function of the GROUP BY " +
        s"list. Select exactly the $function(...) expression you group by.")

  def distinctAggregate(function: String, aggregate: String): Nothing =
    fail("WINDOW_UNSUPPORTED_AGGREGATE",
      s"DISTINCT aggregates are not supported with $function: $aggregate. Use a mergeable " +
        s"equivalent instead, such as size(collect_set(...)) or approx_count_distinct(...).")

  def unsupportedAggregate(function: String, aggregate: String): Nothing =
    fail("WINDOW_UNSUPPORTED_AGGREGATE",
      s"The aggregate $aggregate cannot be computed with $function: only aggregates that run " +
        s"in the JVM (built-in functions, Scala/Java UDAFs) are supported, not Python or " +
        s"pandas UDAFs.")

  def completeModeNotSupported(function: String): Nothing =
    fail("WINDOW_STREAMING_COMPLETE_MODE",
      s"$function does not support the Complete output mode, which would keep every window " +
        "forever; use the Append mode (each window once, when the watermark closes it) or " +
        "the Update mode (changed windows in every micro-batch).")

  /** At run time: a row whose windows' bounds fall outside the 64-bit microsecond range. */
  def boundsOverflow(function: String, time: Long, sizeMicros: Long): ArithmeticException =
    new ArithmeticException(
      s"[WINDOW_BOUNDS_OVERFLOW] $function cannot compute the windows of a row at " +
        s"$time microseconds since the epoch with a size of $sizeMicros microseconds: its " +
        "window bounds fall outside the 64-bit timestamp range. Filter out such rows or use a " +
        "smaller size.")

  def nondeterministicWindowNotGrouped(function: String, expression: String): Nothing =
    fail("WINDOW_FUNCTION_NOT_IN_GROUP_BY",
      s"The SELECT list uses $expression, which is not the window function of the GROUP BY " +
        s"list: its nondeterministic time or order is not the grouped one (in SQL, rand() or " +
        s"randn() without a seed gets a seed of its own where it is written). Give it a seed, " +
        s"such as rand(7), or compute the time column first, in a subquery.")
}
