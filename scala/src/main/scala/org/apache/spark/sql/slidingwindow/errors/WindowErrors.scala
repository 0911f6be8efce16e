package org.apache.spark.sql.slidingwindow.errors

import org.apache.spark.sql.AnalysisException

/**
 * Every user-facing error of the extension. Each one has an error condition of
 * [[WindowErrorConditions]] (`getCondition`, `getSqlState`), whose message says what to change.
 * They are [[AnalysisException]]s raised while the query is analysed or planned, except
 * [[boundsOverflow]], an `ArithmeticException` raised while the query runs, and
 * [[jarForAnotherSpark]], raised when a session applies the extension.
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

  /** The selected window's nondeterministic time or order is another evaluation than the grouped one's. */
  def nondeterministicWindowNotGrouped(function: String, expression: String): Nothing =
    fail("WINDOW_FUNCTION_NOT_IN_GROUP_BY.NONDETERMINISTIC_WINDOW",
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
   * A stream in the Append output mode whose time column has no watermark, while the query has
   * one on `watermarkColumns`: nothing would ever close the windows.
   */
  def watermarkNotOnTimeColumn(function: String, timeColumn: String, watermarkColumns: Seq[String]): Nothing =
    fail("WINDOW_STREAMING_WATERMARK_NOT_ON_TIME_COLUMN", "function" -> function,
      "timeColumn" -> timeColumn, "watermarkColumns" -> watermarkColumns.mkString(", "))

  /** A window function on a stream that is not an aggregate over a trailing RANGE frame. */
  def streamingWindowNotTrailing(expression: String): Nothing =
    fail("WINDOW_STREAMING_NOT_TRAILING", "expression" -> expression)

  /** A Python or pandas aggregate (`aggregate`) over a trailing frame on a stream. */
  def streamingTrailingPythonAggregate(expression: String, aggregate: String): Nothing =
    fail("WINDOW_STREAMING_TRAILING_PYTHON_AGGREGATE", "expression" -> expression, "aggregate" -> aggregate)

  /** A grouped map (PySpark's applyInPandas, ...) over a grouping by a window function. */
  def groupedMap(function: String): Nothing =
    fail("WINDOW_FUNCTION_NOT_IN_GROUP_BY.GROUPED_MAP", "function" -> function)

  /**
   * Trailing windows ordered by `unix_micros(column)` (as the Python `trailing_window` helper orders
   * them) of a column that is not a TIMESTAMP.
   */
  def trailingTimeColumn(column: String, dataType: String): Nothing =
    fail("WINDOW_TRAILING_TIME_COLUMN", "column" -> column, "dataType" -> dataType)

  /** Trailing windows on a stream in another output mode than Append. */
  def trailingOutputMode(expressions: String, mode: String): Nothing =
    fail("WINDOW_STREAMING_TRAILING_OUTPUT_MODE", "expressions" -> expressions, "mode" -> mode)

  /** Trailing windows on a stream ordered by a TIMESTAMP_NTZ column, which cannot have a watermark. */
  def trailingOnTimestampNtz(expressions: String, timeColumn: String): Nothing =
    fail("WINDOW_STREAMING_TRAILING_TIMESTAMP_NTZ", "expressions" -> expressions, "timeColumn" -> timeColumn)

  /**
   * Trailing windows on a stream whose ORDER BY column has no watermark (`watermarkColumns`: the
   * columns the query has one on, if any).
   */
  def trailingWithoutWatermark(expressions: String, timeColumn: String, watermarkColumns: Seq[String]): Nothing =
    fail("WINDOW_STREAMING_TRAILING_WATERMARK", "expressions" -> expressions, "timeColumn" -> timeColumn,
      "watermarkColumns" -> (if (watermarkColumns.isEmpty) "the query has none" else
        s"the query has one on ${watermarkColumns.mkString(", ")}, which does not order its windows"))

  /**
   * A streaming query restarted from `checkpoint`, whose state was written in state format
   * `version`, which this release does not read (a later release wrote it).
   */
  def stateFormatUnsupported(function: String, version: Int, supported: Seq[Int], checkpoint: String): Nothing =
    fail("WINDOW_STATE_FORMAT_UNSUPPORTED", "function" -> function, "version" -> version.toString,
      "supportedVersions" -> supported.mkString(", "), "checkpoint" -> checkpoint)

  /**
   * A streaming query restarted from `checkpoint` with a changed window aggregation: `what`
   * changed (the window function, size, time or order column, the grouping keys, the
   * aggregates, the output mode from append to update) from `before` (in the checkpoint) to
   * `after` (in the restarted query).
   */
  def incompatibleRestart(function: String, what: String, before: String, after: String, checkpoint: String): Nothing =
    fail("WINDOW_STATE_INCOMPATIBLE_RESTART", "function" -> function, "change" -> what,
      "before" -> before, "after" -> after, "checkpoint" -> checkpoint)

  /** A restart on a Spark that cannot read how the checkpoint's state is arranged. */
  def stateStorageUnsupported(function: String, storage: String, needs: String, checkpoint: String): Nothing =
    fail("WINDOW_STATE_STORAGE_UNSUPPORTED", "function" -> function, "storage" -> storage,
      "needs" -> needs, "sparkVersion" -> org.apache.spark.SPARK_VERSION, "checkpoint" -> checkpoint)

  /** A setting of the extension that a query reads when it starts, with a value it cannot take. */
  def invalidSetting(key: String, value: String, expected: String): Nothing =
    fail("WINDOW_INVALID_SETTING", "key" -> key, "value" -> value, "expected" -> expected)

  /** The query's late-rows table cannot take its late rows (docs/streaming.md, "Late rows as data"). */
  /** `where`: where to rename them, before `withWatermark` or before the window. */
  def lateRowsColumnClash(table: String, operator: String, columns: Seq[String], clash: String, where: String): Nothing =
    fail("WINDOW_LATE_ROWS_TABLE.COLUMN_CLASH", "table" -> table, "operator" -> operator,
      "columns" -> columns.mkString("(", ", ", ")"), "clash" -> clash, "where" -> where)

  def lateRowsUnsupportedType(table: String, operator: String, column: String, dataType: String, part: String): Nothing =
    fail("WINDOW_LATE_ROWS_TABLE.UNSUPPORTED_TYPE", "table" -> table, "operator" -> operator,
      "column" -> column, "dataType" -> dataType, "part" -> part)

  def lateRowsDatabaseNotFound(table: String, database: String): Nothing =
    fail("WINDOW_LATE_ROWS_TABLE.DATABASE_NOT_FOUND", "table" -> table, "database" -> database)

  def lateRowsGlobalTempDatabase(table: String, database: String): Nothing =
    fail("WINDOW_LATE_ROWS_TABLE.GLOBAL_TEMP_DATABASE", "table" -> table, "database" -> database)

  def lateRowsTemporaryView(table: String, name: String, qualified: String): Nothing =
    fail("WINDOW_LATE_ROWS_TABLE.TEMPORARY_VIEW", "table" -> table, "name" -> name, "qualified" -> qualified)

  def lateRowsTableInUse(table: String, owner: String): Nothing =
    fail("WINDOW_LATE_ROWS_TABLE.IN_USE", "table" -> table, "owner" -> owner)

  def lateRowsTableNotWritable(table: String, location: String, cause: Throwable): Nothing =
    throw new WindowAnalysisException("WINDOW_LATE_ROWS_TABLE.NOT_WRITABLE", Map("table" -> table,
      "location" -> location, "cause" -> s"${cause.getClass.getSimpleName}: ${cause.getMessage}"), cause)

  def lateRowsSchemaMismatch(table: String, tableColumns: String, operator: String, columns: String): Nothing =
    fail("WINDOW_LATE_ROWS_TABLE.SCHEMA_MISMATCH", "table" -> table, "tableColumns" -> tableColumns,
      "operator" -> operator, "columns" -> columns)

  def lateRowsTableUnsuitable(table: String, reason: String): Nothing =
    fail("WINDOW_LATE_ROWS_TABLE.UNSUITABLE", "table" -> table, "reason" -> reason)

  def lateRowsSettingChanged(recorded: String, current: String): Nothing =
    fail("WINDOW_LATE_ROWS_SETTING_CHANGED", "recorded" -> recorded, "current" -> current)

  /** When a session applies the extension: the jar was compiled against another Spark minor version. */
  def jarForAnotherSpark(builtFor: String, running: String, runningMinor: String): Nothing =
    throw new WindowSetupException("WINDOW_JAR_FOR_ANOTHER_SPARK",
      Map("builtFor" -> builtFor, "running" -> running, "runningMinor" -> runningMinor))

  /** At run time: a row whose windows' bounds fall outside the 64-bit microsecond range. */
  def boundsOverflow(function: String, time: Long, sizeMicros: Long): ArithmeticException =
    new WindowArithmeticException("WINDOW_BOUNDS_OVERFLOW",
      Map("function" -> function, "time" -> time.toString, "size" -> sizeMicros.toString))
}
