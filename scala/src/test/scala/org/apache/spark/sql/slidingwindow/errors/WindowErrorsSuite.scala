package org.apache.spark.sql.slidingwindow.errors

import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.trees.Origin
import org.apache.spark.sql.slidingwindow.TestThrowables

/** The error conditions file, and the errors of [[WindowErrors]] built from it. */
class WindowErrorsSuite extends AnyFunSuite {

  /** One call of every factory of WindowErrors, by name. */
  private val factories: Seq[(String, () => Throwable)] = Seq(
    "invalidSize" -> (() => WindowErrors.invalidSize("sliding_window", "'0 seconds'", "the size is zero")),
    "nonConstantSize" -> (() => WindowErrors.nonConstantSize("sliding_window", "events.k")),
    "invalidTimeColumn" -> (() => WindowErrors.invalidTimeColumn("sliding_window", "`v`", "BIGINT")),
    "invalidOrderColumn" -> (() => WindowErrors.invalidOrderColumn("batch_window", "`m`", "MAP<STRING, BIGINT>")),
    "wrongNumberOfArguments" ->
      (() => WindowErrors.wrongNumberOfArguments("sliding_window", "2", "sliding_window(time, size)", 1)),
    "namedArguments" -> (() => WindowErrors.namedArguments("sliding_window", "sliding_window(time, size)")),
    "outsideGroupBy" -> (() => WindowErrors.outsideGroupBy("sliding_window", "an ORDER BY clause")),
    "windowNotGrouped" -> (() => WindowErrors.windowNotGrouped("sliding_window", "sliding_window(ts, '5 seconds')")),
    "nondeterministicWindowNotGrouped" -> (() => WindowErrors.nondeterministicWindowNotGrouped(
      "sliding_window", "sliding_window(timestamp_seconds(CAST((rand() * 100) AS INT)), '10 seconds')")),
    "nested" -> (() => WindowErrors.nested("sliding_window", "sliding_window.`start`")),
    "insideAggregate" -> (() => WindowErrors.insideAggregate("sliding_window", "max(sliding_window)")),
    "multipleWindows" -> (() => WindowErrors.multipleWindows(Seq("sliding_window(ts, '1 second')", "window"))),
    "groupingSets" -> (() => WindowErrors.groupingSets("sliding_window")),
    "pivot" -> (() => WindowErrors.pivot("sliding_window")),
    "correlated" -> (() => WindowErrors.correlated("sliding_window", "outer(o.k)")),
    "distinctAggregate" -> (() => WindowErrors.distinctAggregate("sliding_window", "count(DISTINCT v)")),
    "unsupportedAggregate" -> (() => WindowErrors.unsupportedAggregate("sliding_window", "mean_udf(v)")),
    "completeModeNotSupported" -> (() => WindowErrors.completeModeNotSupported("sliding_window")),
    "watermarkNotOnTimeColumn" ->
      (() => WindowErrors.watermarkNotOnTimeColumn("sliding_window", "ts", Seq("other"))),
    "stateFormatUnsupported" ->
      (() => WindowErrors.stateFormatUnsupported("sliding_window", 9, Seq(1, 2), "file:/ck")),
    "incompatibleRestart" -> (() => WindowErrors.incompatibleRestart(
      "sliding_window", "window size", "'10 seconds'", "'5 seconds'", "file:/ck")),
    "stateStorageUnsupported" -> (() => WindowErrors.stateStorageUnsupported(
      "sliding_window", "time index", "a time index (Spark 4.0 and later)", "file:/ck")),
    "jarForAnotherSpark" -> (() => WindowErrors.jarForAnotherSpark("4.0.5", "4.3.0", "4.3")),
    "invalidSetting" -> (() => WindowErrors.invalidSetting("spark.sql.slidingWindow.idleTimeout", "soon",
      "a positive duration with a unit, such as 30s, 5min or '10 minutes'")),
    "boundsOverflow" -> (() => WindowErrors.boundsOverflow("sliding_window", Long.MaxValue, 10L)),
    "streamingWindowNotTrailing" -> (() => WindowErrors.streamingWindowNotTrailing(
      "row_number() OVER (PARTITION BY card ORDER BY ts ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS n")),
    "trailingOutputMode" -> (() => WindowErrors.trailingOutputMode("count(1) OVER (10 minutes) AS `n_10m`", "Update")),
    "trailingOnTimestampNtz" -> (() => WindowErrors.trailingOnTimestampNtz("count(1) OVER (10 minutes) AS `n_10m`", "ts")),
    "trailingWithoutWatermark" ->
      (() => WindowErrors.trailingWithoutWatermark("count(1) OVER (10 minutes) AS `n_10m`", "ts", Seq("other"))),
    "lateRowsColumnClash" -> (() => WindowErrors.lateRowsColumnClash("spark_catalog.default.late_rows",
      "sliding_window", Seq("k", "late_reason"), "`late_reason` is named twice", "before withWatermark")),
    "lateRowsTableInUse" -> (() => WindowErrors.lateRowsTableInUse("spark_catalog.default.late_rows", "file:/ck")),
    "lateRowsTableNotWritable" -> (() => WindowErrors.lateRowsTableNotWritable("spark_catalog.default.late_rows",
      "file:/data/late_rows", new java.io.IOException("Mkdirs failed"))),
    "lateRowsSchemaMismatch" -> (() => WindowErrors.lateRowsSchemaMismatch("spark_catalog.default.late_rows",
      "(x INT)", "sliding_window", "(k STRING, late_batch_id BIGINT)")),
    "lateRowsTableUnsuitable" -> (() => WindowErrors.lateRowsTableUnsuitable("spark_catalog.default.late_rows", "is a view")),
    "lateRowsSettingChanged" ->
      (() => WindowErrors.lateRowsSettingChanged("spark_catalog.default.late_rows", "spark_catalog.default.other")),
    "lateRowsUnsupportedType" -> (() => WindowErrors.lateRowsUnsupportedType("spark_catalog.default.late_rows",
      "sliding_window", "`g`", "GEOMETRY(4326)", "GEOMETRY(4326)")),
    "lateRowsDatabaseNotFound" -> (() => WindowErrors.lateRowsDatabaseNotFound("nodb.t", "nodb")),
    "lateRowsGlobalTempDatabase" -> (() => WindowErrors.lateRowsGlobalTempDatabase("global_temp.g", "global_temp")),
    "lateRowsTemporaryView" ->
      (() => WindowErrors.lateRowsTemporaryView("late_rows", "late_rows", "spark_catalog.default.late_rows")),
    "streamingTrailingPythonAggregate" -> (() => WindowErrors.streamingTrailingPythonAggregate(
      "pmean(v) OVER (10 minutes) AS `m`", "pmean(v)")),
    "groupedMap" -> (() => WindowErrors.groupedMap("sliding_window")),
    "trailingTimeColumn" -> (() => WindowErrors.trailingTimeColumn("`ts`", "STRING")))

  /** The exception of a factory, thrown (analysis errors) or returned (run-time errors). */
  private def raised(factory: () => Throwable): SparkThrowable = {
    val e = try factory() catch { case t: Throwable => t }
    assert(e.isInstanceOf[SparkThrowable], s"not a SparkThrowable: $e")
    e.asInstanceOf[SparkThrowable]
  }

  test("every condition has a message and a SQL state") {
    assert(!WindowErrorConditions.all.isEmpty)
    for (condition <- WindowErrorConditions.all) {
      assert(condition.matches("WINDOW_[A-Z_]+(\\.[A-Z_]+)?"), condition)
      assert(WindowErrorConditions.template(condition).trim.nonEmpty, condition)
      val sqlState = WindowErrorConditions.sqlState(condition)
      assert(sqlState != null && sqlState.matches("[0-9A-Z]{5}"), s"$condition: $sqlState")
    }
  }

  test("no condition is also one of Spark's") {
    for (condition <- WindowErrorConditions.all) {
      assert(!TestThrowables.isSparkCondition(condition.split('.').head), condition)
    }
  }

  test("every factory is checked") {
    val declared = WindowErrors.getClass.getDeclaredMethods
      .filter(m => java.lang.reflect.Modifier.isPublic(m.getModifiers) && !m.getName.contains("$"))
      .map(_.getName).toSet
    assertResult(declared)(factories.map(_._1).toSet)
  }

  test("every factory raises a condition of the file") {
    for ((name, factory) <- factories) {
      val e = raised(factory)
      val condition = TestThrowables.condition(e)
      assert(WindowErrorConditions.exists(condition), s"$name: $condition")
      assertResult(WindowErrorConditions.sqlState(condition), name)(e.getSqlState)
      TestThrowables.template(e).foreach(t => assertResult(WindowErrorConditions.template(condition), name)(t))
      assertResult(WindowErrorConditions.parameters(condition).toSet,
        name)(e.getMessageParameters.asScala.keySet)
      val message = e.asInstanceOf[Throwable].getMessage
      assert(message.startsWith(s"[$condition] "), s"$name: $message")
      for (parameter <- WindowErrorConditions.parameters(condition)) {
        assert(!message.contains(s"<$parameter>"), s"$name: $message")
      }
    }
  }

  test("every condition is raised by some factory") {
    val raisedConditions = factories.map { case (_, f) => TestThrowables.condition(raised(f)) }.toSet
    assertResult(WindowErrorConditions.all.toSet)(raisedConditions)
  }

  test("analysis errors are analysis exceptions") {
    for ((name, factory) <- factories if name != "boundsOverflow" && name != "jarForAnotherSpark") {
      assert(raised(factory).isInstanceOf[AnalysisException], name)
    }
    assert(raised(factories.toMap.apply("boundsOverflow")).isInstanceOf[ArithmeticException])
    assert(raised(factories.toMap.apply("jarForAnotherSpark")).isInstanceOf[IllegalStateException])
  }

  test("messages are the documented ones") {
    val e = raised(factories.toMap.apply("invalidSize")).asInstanceOf[Throwable]
    assertResult("[WINDOW_INVALID_SIZE.INVALID_DURATION] The `size` argument of sliding_window " +
      "must be a positive, fixed-length duration such as '10 seconds' or INTERVAL 5 MINUTES, " +
      "but got '0 seconds': the size is zero.")(e.getMessage)
  }

  test("the position Spark adds keeps the condition") {
    val e = raised(factories.toMap.apply("wrongNumberOfArguments")).asInstanceOf[AnalysisException]
    val positioned = e.withPosition(Origin(line = Some(1), startPosition = Some(37)))
    assert(positioned.isInstanceOf[WindowAnalysisException], positioned.getClass.getName)
    assertResult("WINDOW_WRONG_NUM_ARGS.WRONG_COUNT")(TestThrowables.condition(positioned))
    assertResult("42605")(positioned.getSqlState)
    assertResult(e.getMessageParameters)(positioned.getMessageParameters)
    assert(positioned.getMessage.endsWith(
      "Usage: sliding_window(time, size).; line 1 pos 37"), positioned.getMessage)
    assertResult(0)(positioned.getQueryContext.length)
  }

  test("a message needs exactly the parameters of its template") {
    intercept[IllegalArgumentException](WindowErrorConditions.message("WINDOW_FUNCTION_PIVOT", Map.empty))
    intercept[IllegalArgumentException](WindowErrorConditions.message(
      "WINDOW_FUNCTION_PIVOT", Map("function" -> "f", "other" -> "x")))
    intercept[IllegalArgumentException](WindowErrorConditions.message("WINDOW_NO_SUCH_CONDITION", Map.empty))
  }
}
