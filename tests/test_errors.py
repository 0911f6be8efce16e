"""Every error of docs/contract.md, "Bad input": an AnalysisException at analysis time naming what
to change, or a clear error for what can only be seen at run time. Each one has its error condition
(`getCondition()`) and SQLSTATE (`getSqlState()`) from the extension's conditions file; the tests
check those, and the message only where the spec says what it names."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from pyspark.errors import AnalysisException, StreamingQueryException
from pyspark.sql import functions as F

import sliding_window_agg as swa
from error_conditions import assert_condition, run_time_cause
from windows_util import events_df

# Run on every supported Spark by `make test` (tests/conftest.py, `every_spark`).
pytestmark = pytest.mark.every_spark

ROWS = [(0, "a", 10, 1, 1), (0, "a", 14, 2, 2)]


@pytest.fixture(scope="module")
def events(spark):
    df = events_df(spark, ROWS).withColumn("d", F.to_date("ts")).withColumn("s", F.col("k"))
    df.createOrReplaceTempView("err_events")
    return df


def analysis_error(spark, sql: str) -> AnalysisException:
    with pytest.raises(AnalysisException) as e:
        spark.sql(sql).collect()
    return e.value


def grouped(size_sql: str, time: str = "ts") -> str:
    return (f"SELECT k, sliding_window({time}, {size_sql}), count(*) FROM err_events "
            f"GROUP BY k, sliding_window({time}, {size_sql})")


@pytest.mark.parametrize("size,reason", [
    ("'0 seconds'", "the size is zero"),
    ("'-5 seconds'", "the size is negative"),
    ("INTERVAL -1 MINUTE", "the size is negative"),
    ("'banana'", "it is not a duration"),
    ("'10'", "it has no unit"),
    ("'10 s'", "it is not a duration"),
    ("'1 month'", "months and years have no fixed length"),
    ("INTERVAL '1' YEAR", "months and years have no fixed length"),
    ("CAST(NULL AS STRING)", "the size cannot be null"),
    ("10", "it must be a string such as '10 seconds' or an interval"),
])
def test_invalid_size(spark, events, size, reason):
    e = analysis_error(spark, grouped(size))
    assert_condition(e, "WINDOW_INVALID_SIZE.INVALID_DURATION", sql_state="22023")
    assert "`size` argument of sliding_window" in str(e)  # the spec: naming the argument
    assert dict(e.getMessageParameters())["reason"].startswith(reason)


def test_non_constant_size(spark, events):
    e = analysis_error(spark, grouped("s"))
    assert_condition(e, "WINDOW_INVALID_SIZE.NOT_CONSTANT")
    assert dict(e.getMessageParameters())["size"] == "err_events.s"


@pytest.mark.parametrize("column,type_name", [("v", "BIGINT"), ("k", "STRING"), ("d", "DATE")])
def test_time_column_not_a_timestamp(spark, events, column, type_name):
    e = analysis_error(spark, grouped("'10 seconds'", time=column))
    assert_condition(e, "WINDOW_INVALID_TIME_COLUMN", sql_state="42K09")
    assert f"`{column}` is of type {type_name}" in str(e)  # the spec: the column and its type


def test_wrong_number_of_arguments(spark, events):
    e = analysis_error(spark, "SELECT count(*) FROM err_events GROUP BY sliding_window(ts)")
    assert_condition(e, "WINDOW_WRONG_NUM_ARGS.WRONG_COUNT", sql_state="42605")
    assert dict(e.getMessageParameters()) == {"function": "sliding_window", "expected": "2", "actual": "1",
                                        "usage": "sliding_window(time, size)"}
    assert "line 1" in str(e)  # the position in the query is kept


@pytest.mark.parametrize("sql,where", [
    ("SELECT sliding_window(ts, '10 seconds') FROM err_events", "SELECT list without GROUP BY"),
    ("SELECT * FROM err_events WHERE sliding_window(ts, '10 seconds').start IS NOT NULL",
     "WHERE or HAVING"),
    ("SELECT * FROM err_events ORDER BY sliding_window(ts, '10 seconds')", "ORDER BY"),
    ("SELECT sliding_window(ts, '10 seconds'), count(*) FROM err_events GROUP BY k",
     "does not group by it"),
])
def test_outside_group_by(spark, events, sql, where):
    e = analysis_error(spark, sql)
    assert_condition(e, "WINDOW_FUNCTION_NOT_IN_GROUP_BY.OUTSIDE_GROUP_BY", sql_state="42803")
    assert where in dict(e.getMessageParameters())["operator"]


@pytest.mark.parametrize("sql,condition", [
    ("SELECT count(*) FROM err_events WHERE ts IN "
     "(SELECT sliding_window(ts, '10 seconds').start FROM err_events)",
     "WINDOW_FUNCTION_NOT_IN_GROUP_BY.OUTSIDE_GROUP_BY"),
    ("SELECT count(*) FROM err_events WHERE EXISTS "
     "(SELECT count(DISTINCT v) FROM err_events GROUP BY sliding_window(ts, '10 seconds'))",
     "WINDOW_UNSUPPORTED_AGGREGATE.DISTINCT"),
])
def test_errors_inside_subqueries(spark, events, sql, condition):
    assert_condition(analysis_error(spark, sql), condition)


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
def test_pivot_that_spark_computes_in_two_aggregations(spark, events, function):
    """pivot() with sum is resolved into an aggregation grouped by the pivot column too, which
    would give each pivot value windows of its own: rejected, with the FILTER alternative."""
    with pytest.raises(AnalysisException) as e:
        (events.groupBy(getattr(swa, function)("ts", "10 seconds")).pivot("k", ["a", "b"])
         .agg(F.sum("v")).collect())
    assert_condition(e.value, "WINDOW_FUNCTION_PIVOT", sql_state="0A000")
    assert dict(e.value.getMessageParameters()) == {"function": function}


def test_nested_in_group_by(spark, events):
    e = analysis_error(spark, "SELECT count(*) FROM err_events "
                              "GROUP BY sliding_window(ts, '10 seconds').start")
    assert_condition(e, "WINDOW_FUNCTION_NESTED.IN_EXPRESSION", sql_state="42K0E")


def test_inside_an_aggregate(spark, events):
    e = analysis_error(spark, "SELECT max(sliding_window(ts, '10 seconds')) FROM err_events "
                              "GROUP BY k, sliding_window(ts, '10 seconds')")
    assert_condition(e, "WINDOW_FUNCTION_NESTED.IN_AGGREGATE")


@pytest.mark.parametrize("second", ["sliding_window(ts, '5 seconds')", "window(ts, '5 seconds')",
                                    "session_window(ts, '5 seconds')"])
def test_two_windows_in_one_group_by(spark, events, second):
    e = analysis_error(spark, "SELECT count(*) FROM err_events "
                              f"GROUP BY sliding_window(ts, '10 seconds'), {second}")
    assert_condition(e, "WINDOW_FUNCTION_MULTIPLE", sql_state="0A000")


@pytest.mark.parametrize("group_by", [
    "CUBE(k, sliding_window(ts, '10 seconds'))",
    "ROLLUP(k), sliding_window(ts, '10 seconds')",
    "k, sliding_window(ts, '10 seconds') WITH ROLLUP",
    "GROUPING SETS ((k, sliding_window(ts, '10 seconds')), (sliding_window(ts, '10 seconds')))",
    "GROUPING SETS ((k, batch_window(ts, '10 seconds')))",
])
def test_grouping_sets(spark, events, group_by):
    e = analysis_error(spark, f"SELECT k, count(*) FROM err_events GROUP BY {group_by}")
    function = "batch_window" if "batch_window" in group_by else "sliding_window"
    assert_condition(e, "WINDOW_FUNCTION_GROUPING_SETS", sql_state="0A000")
    assert dict(e.getMessageParameters()) == {"function": function}


def test_selecting_another_window_than_the_grouped_one(spark, events):
    e = analysis_error(spark, "SELECT sliding_window(ts, '5 seconds'), count(*) FROM err_events "
                              "GROUP BY sliding_window(ts, '10 seconds')")
    assert_condition(e, "WINDOW_FUNCTION_NOT_IN_GROUP_BY.NOT_THE_GROUPED_WINDOW")


def test_distinct_aggregate(spark, events):
    e = analysis_error(spark, "SELECT count(DISTINCT v) FROM err_events "
                              "GROUP BY k, sliding_window(ts, '10 seconds')")
    assert_condition(e, "WINDOW_UNSUPPORTED_AGGREGATE.DISTINCT", sql_state="0A000")
    assert "approx_count_distinct" in str(e)  # the message says what to use instead


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
def test_python_udaf_is_rejected(spark, events, function):
    """A pandas UDAF (Series to scalar), from the DataFrame API, in SQL once registered, and
    next to built-in aggregates: rejected when the query is defined, with what to use instead
    (docs/troubleshooting.md quotes the message)."""
    pytest.importorskip("pyarrow")
    pytest.importorskip("pandas")
    from python_aggregates import pandas_mean

    mean_udf = pandas_mean(spark, "pandas_mean")
    window = getattr(swa, function)("ts", "10 seconds")

    for query in (lambda: events.groupBy("k", window).agg(mean_udf("v")),
                  lambda: events.groupBy("k", window).agg(F.sum("v"), mean_udf("v")),
                  lambda: spark.sql(f"SELECT k, pandas_mean(v) FROM err_events "
                                    f"GROUP BY k, {function}(ts, '10 seconds')")):
        with pytest.raises(AnalysisException) as e:
            query()
        assert_condition(e.value, "WINDOW_UNSUPPORTED_AGGREGATE.NOT_IN_JVM", sql_state="0A000")
        message = str(e.value)
        assert f"cannot be computed with {function}" in message
        assert "not Python or pandas UDAFs" in message
        assert "built-in aggregate functions" in message
        assert "Aggregator registered with functions.udaf" in message
        assert "collect_list(v) AS vs, and apply the function to the arrays" in message


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
def test_apply_in_pandas_on_a_window_grouping_is_refused(spark, events, function):
    """applyInPandas groups by column values: over a window grouping it is refused with the
    alternative (collect the window's rows, then Python over the arrays), not as a window function
    outside a GROUP BY."""
    pytest.importorskip("pyarrow")
    window = getattr(swa, function)("ts", "10 seconds")
    with pytest.raises(AnalysisException) as e:
        events.groupBy("k", window).applyInPandas(lambda rows: rows[["k"]], "k string")
    assert_condition(e.value, "WINDOW_FUNCTION_NOT_IN_GROUP_BY.GROUPED_MAP", sql_state="42803")
    assert f"groupBy(keys, {function}(time, size)).agg(collect_list(struct(...))" in str(e.value)
    # Selected, it is outside a GROUP BY (selected before every column, the plan is a grouped
    # map's grouping, which the message names too).
    with pytest.raises(AnalysisException) as e:
        events.select("*", window).collect()
    assert_condition(e.value, "WINDOW_FUNCTION_NOT_IN_GROUP_BY.OUTSIDE_GROUP_BY", sql_state="42803")


@pytest.mark.parametrize("cast", ["STRING", "DATE", "TIMESTAMP_NTZ"])
def test_trailing_window_helper_on_a_time_of_another_type(spark, events, cast):
    """The helper orders by unix_micros(time): a time column unix_micros does not take is refused
    with what to cast, not with Spark's type error on unix_micros. TIMESTAMP_NTZ is one on Spark
    3.5; from 4.0 unix_micros takes it, and the frames are those of SQL's ORDER BY on it."""
    df = events.withColumn("t", F.expr(f"CAST(ts AS {cast})"))
    window = swa.trailing_window("k", "t", "10 seconds")
    query = lambda: df.select("ts", F.count("*").over(window).alias("n")).orderBy("ts").collect()  # noqa: E731
    if cast == "TIMESTAMP_NTZ" and not spark.version.startswith("3."):
        assert [r.n for r in query()] == [1, 2]
        return
    with pytest.raises(AnalysisException) as e:
        query()
    assert_condition(e.value, "WINDOW_TRAILING_TIME_COLUMN", sql_state="42K09")
    assert dict(e.value.getMessageParameters()) == {"column": "t", "dataType": cast}
    assert 'df.withColumn("ts", F.col("t").cast("timestamp"))' in str(e.value)


def test_what_the_python_udaf_error_advises_works(spark, events):
    """The alternatives the NOT_IN_JVM message names: a built-in aggregate, and a Scala
    Aggregator registered with functions.udaf (the test jar's typed_sum), called by name."""
    rows = (events.groupBy("k", swa.sliding_window("ts", "10 seconds"))
            .agg(F.avg("v").alias("mean"), F.expr("typed_sum(v)").alias("total"))
            .orderBy("sliding_window.start").collect())
    assert [(r.mean, r.total) for r in rows] == [(1.0, 1), (1.5, 3), (2.0, 2)]


def test_errors_come_at_analysis_time_not_execution(spark, events):
    """The DataFrame is rejected when it is defined, before any job runs."""
    with pytest.raises(AnalysisException) as e:
        events.groupBy("k", swa.sliding_window("ts", "0 seconds")).count()
    assert_condition(e.value, "WINDOW_INVALID_SIZE.INVALID_DURATION")


def test_window_bounds_overflow_is_a_clear_error(spark):
    near_max = 9223372036854775000
    df = events_df(spark, [(0, "a", near_max, 1, 1)])
    with pytest.raises(Exception) as e:
        df.groupBy(swa.sliding_window("ts", "1 day")).count().collect()
    assert_condition(run_time_cause(e.value), "WINDOW_BOUNDS_OVERFLOW", sql_state="22008")
    assert "WINDOW_BOUNDS_OVERFLOW" in str(e.value)


@pytest.mark.slow
def test_python_helpers_say_how_to_load_the_extension(tmp_path):
    """A session started without the extension: the helpers raise ExtensionNotLoadedError with
    the instructions (needs its own JVM, since the extension is a static setting), also in a
    thread that has no active session (the default session is checked there)."""
    script = textwrap.dedent(
        """
        import threading
        from pyspark.sql import SparkSession
        import sliding_window_agg as swa
        spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
        df = spark.createDataFrame([(1,)], "v int")

        def calls(where):
            for call in (lambda: swa.sliding_window("ts", "1 second"),
                         lambda: swa.batch_window("ts", "1 second"),
                         lambda: swa.sliding_window_agg(df, by="v", time="ts", size="1 second", aggs=[])):
                try:
                    call()
                except swa.ExtensionNotLoadedError as e:
                    print("ERROR:", where, e, flush=True)
                except Exception as e:
                    print("OTHER:", where, type(e).__name__, e, flush=True)

        calls("main")
        thread = threading.Thread(target=calls, args=("thread",))
        thread.start()
        thread.join()
        spark.stop()
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "PYSPARK_PYTHON": sys.executable})
    errors = [line for line in out.stdout.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 6, out.stdout + out.stderr
    assert [line.split()[1] for line in errors] == ["main"] * 3 + ["thread"] * 3
    for line in errors:
        assert "not loaded" in line
        assert "sliding_window_agg.configure(SparkSession.builder)" in line
        assert "spark.sql.extensions=" + swa.EXTENSION_CLASS in line


def test_python_helpers_without_any_session():
    """No session at all: PySpark's own error, as F.window raises it (not a bare assertion)."""
    script = textwrap.dedent(
        """
        from pyspark.sql import functions as F
        import sliding_window_agg as swa
        for call in (lambda: F.window("ts", "1 second"),
                     lambda: swa.sliding_window("ts", "1 second"),
                     lambda: swa.batch_window("ts", "1 second")):
            try:
                call()
            except Exception as e:
                print("ERROR:", type(e).__name__, e)
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    errors = [line for line in out.stdout.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 3, out.stdout + out.stderr
    # PySpark 4: PySparkRuntimeError [SESSION_OR_CONTEXT_NOT_EXISTS]; 3.5: a RuntimeError.
    assert errors[1] == errors[2] == errors[0], errors
    assert "RuntimeError" in errors[0] and "Spark" in errors[0], errors


@pytest.mark.parametrize("sql", [
    "SELECT kk.k, l.n FROM (SELECT DISTINCT k FROM err_events) kk, LATERAL (SELECT count(*) n "
    "FROM err_events e WHERE e.k = kk.k GROUP BY sliding_window(ts, '10 seconds')) l",
    "SELECT count(*) FROM err_events o WHERE EXISTS (SELECT 1 FROM err_events e WHERE e.k = o.k "
    "GROUP BY sliding_window(ts, '10 seconds'))",
])
def test_correlated_subquery(spark, events, sql):
    assert_condition(analysis_error(spark, sql), "WINDOW_FUNCTION_CORRELATED", sql_state="0A000")


@pytest.mark.parametrize("sql,condition", [
    ("SELECT count(*) FROM err_events GROUP BY "
     "sliding_window(sliding_window(ts, '10 seconds').start, '1 second')",
     "WINDOW_FUNCTION_NESTED.IN_EXPRESSION"),
    ("SELECT count(*) FROM err_events GROUP BY sliding_window(ts => ts, size => '10 seconds')",
     "WINDOW_WRONG_NUM_ARGS.NAMED_ARGUMENTS"),
    ("SELECT count(*) FROM err_events GROUP BY sliding_window(ts, CAST('abc' AS INTERVAL DAY))",
     "WINDOW_INVALID_SIZE.INVALID_DURATION"),
])
def test_arguments_that_cannot_be_used(spark, events, sql, condition):
    assert_condition(analysis_error(spark, sql), condition)


# batch_window: the same checks, its own usage and the `order` argument.

def batch_grouped(args: str) -> str:
    return (f"SELECT k, batch_window({args}), count(*) FROM err_events "
            f"GROUP BY k, batch_window({args})")


@pytest.mark.parametrize("args,condition,says", [
    ("ts, '0 seconds'", "WINDOW_INVALID_SIZE.INVALID_DURATION", "`size` argument of batch_window"),
    ("ts, '1 month'", "WINDOW_INVALID_SIZE.INVALID_DURATION", "months and years have no fixed length"),
    ("ts, s", "WINDOW_INVALID_SIZE.NOT_CONSTANT", "`size` argument of batch_window"),
    ("v, '5 seconds'", "WINDOW_INVALID_TIME_COLUMN", "`v` is of type BIGINT"),
    ("ts, '5 seconds', map(k, v)", "WINDOW_INVALID_ORDER_COLUMN",
     "`order` argument of batch_window"),
])
def test_batch_window_invalid_arguments(spark, events, args, condition, says):
    e = analysis_error(spark, batch_grouped(args))
    assert_condition(e, condition)
    assert says in str(e)  # the spec: naming the argument, or the column and its type


@pytest.mark.parametrize("args", ["ts", "ts, '5 seconds', id, id"])
def test_batch_window_wrong_number_of_arguments(spark, events, args):
    e = analysis_error(spark, f"SELECT count(*) FROM err_events GROUP BY batch_window({args})")
    assert_condition(e, "WINDOW_WRONG_NUM_ARGS.WRONG_COUNT")
    assert dict(e.getMessageParameters())["usage"] == "batch_window(time, size[, order])"


@pytest.mark.parametrize("sql,condition", [
    ("SELECT batch_window(ts, '5 seconds') FROM err_events",
     "WINDOW_FUNCTION_NOT_IN_GROUP_BY.OUTSIDE_GROUP_BY"),
    ("SELECT count(*) FROM err_events GROUP BY batch_window(ts, '5 seconds').start",
     "WINDOW_FUNCTION_NESTED.IN_EXPRESSION"),
    ("SELECT count(*) FROM err_events GROUP BY batch_window(ts, '5 seconds'), "
     "sliding_window(ts, '5 seconds')", "WINDOW_FUNCTION_MULTIPLE"),
    ("SELECT batch_window(ts, '5 seconds', id), count(*) FROM err_events "
     "GROUP BY batch_window(ts, '5 seconds')", "WINDOW_FUNCTION_NOT_IN_GROUP_BY.NOT_THE_GROUPED_WINDOW"),
    ("SELECT count(DISTINCT v) FROM err_events GROUP BY batch_window(ts, '5 seconds')",
     "WINDOW_UNSUPPORTED_AGGREGATE.DISTINCT"),
])
def test_batch_window_placement(spark, events, sql, condition):
    e = analysis_error(spark, sql)
    assert_condition(e, condition)
    assert "batch_window" in str(e)


def test_batch_window_bounds_overflow_is_a_clear_error(spark):
    near_max = 9223372036854775000
    df = events_df(spark, [(0, "a", near_max, 1, 1)])
    with pytest.raises(Exception) as e:
        df.groupBy(swa.batch_window("ts", "1 day")).count().collect()
    cause = run_time_cause(e.value)
    assert_condition(cause, "WINDOW_BOUNDS_OVERFLOW")
    assert dict(cause.getMessageParameters())["function"] == "batch_window"



@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
def test_unseeded_nondeterministic_time_selected_and_grouped(spark, events, function):
    """In SQL each rand() without a seed gets its own: the selected window is another one, and
    the error says so instead of calling it a second window function."""
    time = "timestamp_seconds(CAST(rand() * 100 AS INT))"
    e = analysis_error(spark, f"SELECT {function}({time}, '10 seconds'), count(*) "
                              f"FROM err_events GROUP BY {function}({time}, '10 seconds')")
    assert_condition(e, "WINDOW_FUNCTION_NOT_IN_GROUP_BY.NONDETERMINISTIC_WINDOW")
    assert "nondeterministic" in str(e) and "rand(7)" in str(e)


# Streams: the watermark on another column than the window's time column.

def watermarked_stream(spark, tmp_path, column=None):
    """A file stream of k, ts and other (both TIMESTAMP), with a watermark on `column`."""
    source = tmp_path / "in"
    source.mkdir()
    (source / "0.json").write_text("".join(f'{{"k": "a", "t": {t}, "o": {t}}}\n' for t in (10, 14, 17)))
    stream = (spark.readStream.schema("k string, t long, o long").json(str(source))
              .withColumn("ts", F.timestamp_seconds("t")).withColumn("other", F.timestamp_seconds("o")))
    return stream.withWatermark(column, "5 seconds") if column else stream


def append_writer(df, tmp_path):
    return (df.writeStream.format("noop").outputMode("append")
            .option("checkpointLocation", str(tmp_path / "checkpoint")).trigger(availableNow=True))


def message_of(error) -> str:
    """The message of a PySpark exception, or of a Java one through py4j."""
    return str(error) if isinstance(error, Exception) else error.getMessage()


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
@pytest.mark.parametrize("also_grouped", [False, True], ids=["other-not-grouped", "other-grouped"])
def test_append_mode_with_the_watermark_on_another_column(spark, tmp_path, function, also_grouped):
    """The watermark is on `other`, the windows are over `ts`: nothing would close them. Spark's
    own check rejects the query when no grouping column has a watermark, without saying which
    column needs one, and lets it run when the watermarked column is grouped too (no window
    would ever be emitted). The extension rejects both when the query starts (Spark 4), or when
    its first micro-batch is planned where Spark's check let it through (Spark 3.5, which has
    no extension point before Spark's check)."""
    from streaming_harness import spark_version

    keys = ["k", "other"] if also_grouped else ["k"]
    df = (watermarked_stream(spark, tmp_path, "other")
          .groupBy(*keys, getattr(swa, function)("ts", "10 seconds")).count())
    if spark_version(spark) >= (4, 0):
        with pytest.raises(AnalysisException) as e:
            append_writer(df, tmp_path).start()
        error = e.value
    elif not also_grouped:
        with pytest.raises(AnalysisException) as e:
            append_writer(df, tmp_path).start()
        assert "without watermark" in str(e.value)  # Spark 3.5's own message
        return
    else:
        with pytest.raises(StreamingQueryException) as e:
            append_writer(df, tmp_path).start().awaitTermination()
        error = run_time_cause(e.value)
    assert_condition(error, "WINDOW_STREAMING_WATERMARK_NOT_ON_TIME_COLUMN", sql_state="42KDE")
    assert dict(error.getMessageParameters()) == {
        "function": function, "timeColumn": "ts", "watermarkColumns": "other"}
    message = message_of(error)
    assert f"{function} in the Append output mode needs a watermark on its time column ts" in message
    assert "the watermark of this query is on other" in message
    assert 'withWatermark("ts", delay)' in message
    assert f"pass the watermarked column as the time column of {function}" in message


def test_append_mode_watermark_elsewhere_in_sql_and_with_a_time_expression(spark, tmp_path):
    """A streaming view queried in SQL, whose window is over an expression of the columns: the
    message shows the expression as written."""
    from streaming_harness import spark_version

    if spark_version(spark) < (4, 0):
        pytest.skip("Spark 3.5 rejects this query with its own message, before the extension")
    watermarked_stream(spark, tmp_path, "ts").createOrReplaceTempView("err_watermarked_stream")
    df = spark.sql("SELECT k, count(*) FROM err_watermarked_stream "
                   "GROUP BY k, sliding_window(timestamp_seconds(o), '10 seconds')")
    with pytest.raises(AnalysisException) as e:
        append_writer(df, tmp_path).start()
    assert_condition(e.value, "WINDOW_STREAMING_WATERMARK_NOT_ON_TIME_COLUMN")
    assert dict(e.value.getMessageParameters()) == {
        "function": "sliding_window", "timeColumn": "timestamp_seconds(o)", "watermarkColumns": "ts"}


def test_append_mode_without_any_watermark_keeps_sparks_message(spark, tmp_path):
    """No watermark at all: Spark's own STREAMING_OUTPUT_MODE error, which says so."""
    df = watermarked_stream(spark, tmp_path).groupBy("k", swa.sliding_window("ts", "10 seconds")).count()
    with pytest.raises(AnalysisException) as e:
        append_writer(df, tmp_path).start()
    assert "without watermark" in str(e.value)
    assert "WINDOW_" not in str(e.value)


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
def test_append_mode_with_the_watermark_on_the_time_column_runs(spark, tmp_path, function):
    df = (watermarked_stream(spark, tmp_path, "ts")
          .groupBy("k", "other", getattr(swa, function)("ts", "10 seconds")).count())
    query = append_writer(df, tmp_path).start()
    query.awaitTermination()
    assert query.exception() is None
