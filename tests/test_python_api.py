"""The Python package's own behaviour: configure(), the helpers' arguments and results."""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pyspark
import pytest
from pyspark.errors import PySparkTypeError, PySparkValueError
from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa
from error_conditions import condition_of
from reference import sliding_windows
from windows_util import events_df, window_micros


def test_configure_adds_jar_and_extension_keeping_existing_settings():
    builder = SparkSession.Builder().config("spark.jars", "/opt/other.jar").config(
        "spark.sql.extensions", "com.example.OtherExtension")
    configured = swa.configure(builder)
    assert configured is builder
    assert builder._options["spark.jars"] == "/opt/other.jar," + swa.jar_path()
    assert builder._options["spark.sql.extensions"] == "com.example.OtherExtension," + swa.EXTENSION_CLASS
    swa.configure(builder)  # idempotent
    assert builder._options["spark.jars"].count(swa.jar_path()) == 1


def test_bundled_jar_records_its_spark_version_and_the_package_version():
    import zipfile

    import pyspark

    assert os.path.isfile(swa.jar_path())
    with zipfile.ZipFile(swa.jar_path()) as z:
        props = z.read("sliding-window-agg.properties").decode()
        assert f"spark.version={pyspark.__version__}" in props
        assert f"version={swa.__version__}" in props.splitlines()
        assert f"Implementation-Version: {swa.__version__}" in z.read("META-INF/MANIFEST.MF").decode()
        assert "org/apache/spark/sql/slidingwindow/SlidingWindowExtensions.class" in z.namelist()


def test_session_has_extension(spark):
    assert swa.is_loaded(spark)


def test_sliding_window_returns_a_column(spark):
    assert isinstance(swa.sliding_window("ts", "1 second"), Column)
    assert isinstance(swa.sliding_window(F.col("ts"), "1 second"), Column)


@pytest.mark.parametrize("by", ["k", ["k"], "col(k)", ("k", "case")])
def test_sliding_window_agg_accepts_keys_in_every_form(spark, by):
    by = [F.col("k")] if by == "col(k)" else by
    events = [(1, "a", 1, 1, 1), (1, "a", 3, 2, 2), (1, "b", 2, 3, 3)]
    df = events_df(spark, events)
    out = swa.sliding_window_agg(df, by=by, time="ts", size="2 microseconds",
                                 aggs=[F.sum("v").alias("total")])
    assert "sliding_window" in out.columns and out.columns[-1] == "total"
    got = sorted((r.k, r.s, r.e, r.total) for r in out.select("k", *window_micros(), "total").collect())
    expected = sliding_windows(events, 2, key=lambda r: r[1], time=lambda r: r[2])
    assert got == sorted((k, s, e, sum(m[3] for m in ms)) for (k, s, e), ms in expected.items())


def test_sliding_window_agg_needs_an_aggregate(spark):
    df = events_df(spark, [(1, "a", 1, 1, 1)])
    with pytest.raises(PySparkValueError, match=r"\[CANNOT_BE_EMPTY\] At least one aggregate in `aggs`") as e:
        swa.sliding_window_agg(df, by="k", time="ts", size="1 second", aggs=[])
    assert isinstance(e.value, ValueError)


BAD_ARGUMENTS = {
    # name: (arguments replacing the good ones (a function: called in the test, once a session
    # exists), argument named, what it says is expected, type given)
    "by None": ({"by": None}, "by", "a Column, a column name (str), or a list of them", "NoneType"),
    "by of ints": ({"by": ["k", 3]}, "by[1]", "a Column or a column name (str)", "int"),
    "aggs dict": ({"aggs": {"v": "sum"}}, "aggs", "a list of aggregate Columns", "dict"),
    "aggs not in a list": ({"aggs": lambda: F.sum("v")}, "aggs",
                           "a list of aggregate Columns, such as [F.sum('amount'), F.count('*')] "
                           "(put a single aggregate in a list)", "Column"),
    "aggs of names": ({"aggs": ["v"]}, "aggs[0]", "an aggregate Column", "str"),
    "df a table name": ({"df": "events"}, "df", "a DataFrame (a table name: pass spark.table(name))", "str"),
    "time int": ({"time": 5}, "time", "a Column or a column name (str)", "int"),
    "size number": ({"size": 10}, "size", "a duration string, such as '10 seconds'", "int"),
}


@pytest.mark.parametrize("case", list(BAD_ARGUMENTS))
def test_sliding_window_agg_says_which_argument_is_wrong(spark, case):
    """Each wrong argument is PySpark's own NOT_EXPECTED_TYPE error, naming the argument, what it
    should be and the type given (not a bare TypeError, AssertionError or AttributeError)."""
    changes, arg, expected, given = BAD_ARGUMENTS[case]
    args = dict(df=events_df(spark, [(1, "a", 1, 1, 1)]), by=["k"], time="ts", size="1 second",
                aggs=[F.sum("v")])
    args.update({name: value() if callable(value) else value for name, value in changes.items()})
    with pytest.raises(PySparkTypeError) as e:
        swa.sliding_window_agg(**args)
    assert condition_of(e.value) == "NOT_EXPECTED_TYPE"
    message = str(e.value)
    assert f"Argument `{arg}` should be {expected}" in message and message.endswith(f"got {given}."), message


@pytest.mark.parametrize("function", [swa.sliding_window, swa.batch_window])
def test_column_functions_say_which_argument_is_wrong(spark, function):
    with pytest.raises(PySparkTypeError, match=r"Argument `time` should be a Column or a column name \(str\), got int"):
        function(3, "1 second")
    with pytest.raises(PySparkTypeError, match=r"Argument `size` should be a duration string, such as '10 seconds', got int"):
        function("ts", 10)
    # PySpark's own VALUE_NOT_NON_EMPTY_STR, in the running PySpark's words.
    wording = "non empty" if pyspark.__version__.startswith("3.") else "non-empty"
    with pytest.raises(PySparkValueError, match=rf"Value for `size` must be a {wording} string"):
        function("ts", " ")


def test_sliding_window_agg_accepts_a_generator_of_keys_and_aggregates(spark):
    df = events_df(spark, [(1, "a", 1, 1, 1), (1, "a", 2, 2, 2)])
    out = swa.sliding_window_agg(df, by=(c for c in ["k"]), time="ts", size="1 microsecond",
                                 aggs=(a for a in [F.sum("v").alias("total")]))
    assert out.columns == ["k", "sliding_window", "total"]


THREAD_EVENTS = [(1, "a", 10, 1, 1), (1, "a", 14, 2, 2), (1, "a", 17, 3, 3), (1, "b", 25, 4, 4)]


def windows_of(df, function):
    """Window bounds and sums of a grouped `function` column over `df`, as plain tuples."""
    column = function("ts", "10 microseconds")
    grouped = df.groupBy("k", column).agg(F.sum("v").alias("total"))
    name = grouped.columns[1]
    return sorted(tuple(r) for r in grouped.select("k", *window_micros(name), "total").collect())


def test_functions_work_in_a_thread_without_an_active_session(spark):
    """A thread of a pool (or of a web server) has no active session of its own: the column
    functions work there as PySpark's own do, and sliding_window_agg uses its DataFrame's
    session."""
    df = events_df(spark, THREAD_EVENTS)

    def in_thread():
        assert SparkSession.getActiveSession() is None  # what the test is about
        assert isinstance(F.window("ts", "1 second"), Column)  # PySpark's own work here
        return (windows_of(df, swa.sliding_window), windows_of(df, swa.batch_window),
                sorted(tuple(r) for r in swa.sliding_window_agg(
                    df, by="k", time="ts", size="10 microseconds", aggs=[F.sum("v").alias("total")])
                    .select("k", *window_micros(), "total").collect()))

    with ThreadPoolExecutor(max_workers=1) as pool:
        sliding, batch, agg = pool.submit(in_thread).result(timeout=300)
    assert sliding == windows_of(df, swa.sliding_window) == agg
    expected = sliding_windows(THREAD_EVENTS, 10, key=lambda r: r[1], time=lambda r: r[2])
    assert sliding == sorted((k, s, e, sum(m[3] for m in ms)) for (k, s, e), ms in expected.items())
    assert batch == windows_of(df, swa.batch_window) == [("a", 10, 20, 6), ("b", 20, 30, 4)]


MILLION_DAYS = 1_000_000 * 86_400_000_000  # microseconds


def test_windows_before_year_1_are_read_as_micros(spark):
    """A size of a million days reaches back before year 1 (about 714 BC): Spark computes the
    bounds, but Python's datetime cannot hold them, so collecting the window fails as
    docs/semantics.md says; selecting unix_micros(w.start) and unix_micros(w.end) reads them."""
    day = 86_400_000_000
    events = [(0, "k", 19_723 * day, 1, 1), (0, "k", 19_724 * day, 2, 2)]  # 2024-01-01, 02
    out = events_df(spark, events).groupBy(swa.sliding_window("ts", "1000000 days")).count()
    with pytest.raises(ValueError, match="year -?\\d+ is out of range"):
        out.collect()
    got = sorted(tuple(r) for r in out.select(
        F.unix_micros("sliding_window.start").alias("s"), F.unix_micros("sliding_window.end").alias("e"),
        "count").collect())
    expected = sliding_windows(events, MILLION_DAYS, key=lambda r: r[1], time=lambda r: r[2])
    assert got == sorted((s, e, len(ms)) for (_, s, e), ms in expected.items())
    assert got[0][0] == 19_723 * day - MILLION_DAYS < -62_135_596_800_000_000  # before 0001-01-01
