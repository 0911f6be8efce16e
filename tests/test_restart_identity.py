"""What a restart compares beyond the aggregate functions themselves (docs/streaming.md,
"Restarting a changed query"): the user's functions inside them, the session settings their
expressions carry, the types of their columns, and constants by value.

- A restart that changes what an aggregate computes is refused before any micro-batch runs: a Java
  UDF class swapped under the same name, a changed Python function, the session time zone under
  `extract(HOUR FROM ts)`, `try_make_timestamp` or a folded `make_timestamp` of constants, an input
  column's type under `approx_count_distinct`.
- A restart that computes the same is accepted, with windows equal to plain Spark's aggregation of
  each window's rows: the same Python function from another interpreter path, a constant written
  another way (`0.5` in SQL, `0.5D` from Python), `any_value(v)` where the state was written by
  `first(v), any_value(v)` (one column in Spark's plan), another session time zone under
  aggregates that read none, the same query with its names in upper case (but another column of
  that name where spark.sql.caseSensitive is on).
- Surveyed over every function of the running Spark's registry: wherever a session setting changes
  the values an expression computes on sample rows (the independent reference), it changes what
  the aggregate over it is recorded to compute; the time zone counts nowhere else.
"""
from __future__ import annotations

import os
import sys

import pytest
from pyspark.sql import functions as F

import aggregates_harness as h
from error_conditions import assert_condition, run_time_cause
from streaming_harness import HDFS, run_query, session_conf, state_store

UDFS = "org.apache.spark.sql.slidingwindow"


def first_run(spark, tmp_path, build, read=h.read):
    files = h.generate()
    half = len(files) // 2
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "checkpoint")
    h.write_files(source, files[:half])
    with state_store(spark, HDFS):
        first = run_query(spark, source, checkpoint, build, "append", read=read)
    h.write_files(source, files[half:], first=half)
    return files, source, checkpoint, first


def commits(checkpoint: str) -> list:
    return sorted(os.listdir(os.path.join(checkpoint, "commits")))


def assert_refused(spark, source, checkpoint, build, named: str, read=h.read) -> None:
    """The restart fails with WINDOW_STATE_INCOMPATIBLE_RESTART, naming the aggregate, before any
    micro-batch commits."""
    before = commits(checkpoint)
    with state_store(spark, HDFS), pytest.raises(Exception) as e:
        run_query(spark, source, checkpoint, build, "append", read=read)
    assert_condition(run_time_cause(e.value), "WINDOW_STATE_INCOMPATIBLE_RESTART")
    message = str(e.value)
    assert "changed the aggregate functions" in message and named in message, message[:3000]
    assert commits(checkpoint) == before, "nothing ran"


def assert_restarts(spark, files, source, checkpoint, first, calls, read=h.read, build=None):
    """The restart runs to the end; every window of both runs equals the reference, each once
    (the first run's columns are compared where its calls are the restart's)."""
    with state_store(spark, HDFS):
        second = run_query(spark, source, checkpoint, build or h.query(calls), "append", read=read)
    assert second.rows, "the restart emitted the windows still open"
    want = h.reference(spark, files, calls)
    got = h.emitted(second.rows, calls)
    assert not h.differences(got, {w: v for w, v in want.items() if w in got}, calls), \
        h.differences(got, want, calls)[:10]
    earlier = {(r.k, r.s, r.e) for _, r in first.rows if r.k != h.FLUSH_KEY}
    assert not earlier & set(got), "no window emitted twice"
    assert earlier | set(got) == set(want), "every window emitted"


def test_a_java_udf_class_swapped_under_its_name_is_refused(spark, tmp_path):
    from pyspark.sql.types import LongType

    calls = ["sum(jf(v))"]
    spark.udf.registerJavaFunction("jf", f"{UDFS}.TimesTwo", LongType())
    files, source, checkpoint, first = first_run(spark, tmp_path, h.query(calls))
    spark.udf.registerJavaFunction("jf", f"{UDFS}.TimesThree", LongType())
    assert_refused(spark, source, checkpoint, h.query(calls), "TimesThree")
    spark.udf.registerJavaFunction("jf", f"{UDFS}.TimesTwo", LongType())
    assert_restarts(spark, files, source, checkpoint, first, calls)


def test_a_session_time_zone_change_under_extract_is_refused(spark, tmp_path):
    """Through a replacement (extract, Spark 4's try_make_timestamp) or a constant Spark folds in
    the zone."""
    make = "try_make_timestamp" if spark.catalog.functionExists("try_make_timestamp") else "make_timestamp"
    calls = ["sum(extract(HOUR FROM ts))", "sum(date_part('HOUR', ts))",
             f"max({make}(2023, 11, 14, CAST(v % 5 AS INT), 0, 0))", "max(make_timestamp(2023, 11, 14, 1, 0, 0))"]
    files, source, checkpoint, first = first_run(spark, tmp_path, h.query(calls))
    with session_conf(spark, "spark.sql.session.timeZone", "America/Los_Angeles"):
        assert_refused(spark, source, checkpoint, h.query(calls), "IN TIME ZONE America/Los_Angeles")
    assert_restarts(spark, files, source, checkpoint, first, calls)


def test_a_session_time_zone_change_under_aggregates_that_read_no_zone_restarts(spark, tmp_path):
    calls = ["sum(v)", "max(unix_micros(ts))", "max(date_add(make_date(2023, 11, 14), CAST(v % 5 AS INT)))"]
    files, source, checkpoint, first = first_run(spark, tmp_path, h.query(calls))
    with session_conf(spark, "spark.sql.session.timeZone", "America/Los_Angeles"):
        assert_restarts(spark, files, source, checkpoint, first, calls)


def test_an_input_column_type_change_is_refused(spark, tmp_path):
    """The sketch of approx_count_distinct hashes an INT and a BIGINT differently."""
    calls = ["approx_count_distinct(v)"]

    def read_int(spark, folder):
        return h.read(spark, folder).withColumn("v", F.col("v").cast("int"))

    files, source, checkpoint, first = first_run(spark, tmp_path, h.query(calls), read=read_int)
    assert_refused(spark, source, checkpoint, h.query(calls), "v BIGINT")


def test_a_constant_written_another_way_restarts(spark, tmp_path):
    """percentile_approx(d, 0.5) in SQL holds CAST(0.5BD AS DOUBLE); from Python, 0.5D."""
    calls = ["percentile_approx(d, 0.5)"]
    files, source, checkpoint, first = first_run(spark, tmp_path, h.query(calls))

    def from_python(stream):
        return (stream.withWatermark("ts", h.DELAY)
                .groupBy("k", F.expr(f"sliding_window(ts, '{h.SIZE_TEXT}')").alias("w"))
                .agg(F.percentile_approx("d", 0.5).alias("a0"))
                .select("k", F.unix_micros("w.start").alias("s"), F.unix_micros("w.end").alias("e"), "a0"))

    assert_restarts(spark, files, source, checkpoint, first, calls, build=from_python)


def upper_cased(calls):
    """h.query(calls) with every name in upper case, the columns it shows named as h.query's."""
    def build(stream):
        return (stream.withWatermark("TS", h.DELAY)
                .groupBy("K", F.expr(f"SLIDING_WINDOW(TS, '{h.SIZE_TEXT}')").alias("w"))
                .agg(*[F.expr(c.upper()).alias(f"a{i}") for i, c in enumerate(calls)])
                .select(F.col("K").alias("k"), F.unix_micros("w.start").alias("s"), F.unix_micros("w.end").alias("e"),
                        *[F.expr(h.shown(c, f"a{i}")).alias(f"a{i}") for i, c in enumerate(calls)]))
    return build


def test_the_same_query_in_another_case_restarts(spark, tmp_path):
    """Spark resolves `SUM(V)` grouped by `K` to the columns of `sum(v)` grouped by `k`
    (spark.sql.caseSensitive is off)."""
    calls = ["sum(v)", "max(hour(ts))"]
    files, source, checkpoint, first = first_run(spark, tmp_path, h.query(calls))
    assert_restarts(spark, files, source, checkpoint, first, calls, build=upper_cased(calls))


def test_another_column_in_another_case_is_refused_where_names_are_case_sensitive(spark, tmp_path):
    calls = ["sum(v)"]

    def read_both(spark, folder):
        return h.read(spark, folder).withColumn("V", F.col("v") * 2)

    with session_conf(spark, "spark.sql.caseSensitive", "true"):
        files, source, checkpoint, first = first_run(spark, tmp_path, h.query(calls), read=read_both)
        assert_refused(spark, source, checkpoint, h.query(["sum(V)"]), "sum(V)", read=read_both)


@pytest.mark.parametrize("kept", ["any_value(v)", "first(v)"])
def test_one_of_two_aggregates_spark_plans_as_one_column_may_be_removed(spark, tmp_path, kept):
    files, source, checkpoint, first = first_run(spark, tmp_path, h.query(["first(v)", "any_value(v)"]))
    assert_restarts(spark, files, source, checkpoint, first, [kept])


def python_udf(spark, function, exec_path=None, pandas=False):
    """Registers `pyf`, a Python UDF of `function` (a pandas UDF of it with `pandas`), its
    workers started by `exec_path`."""
    sc = spark.sparkContext
    kept = sc.pythonExec
    sc.pythonExec = exec_path or kept
    try:
        if pandas:
            spark.udf.register("pyf", F.pandas_udf(function, "bigint"))
        else:
            spark.udf.register("pyf", function, "bigint")
    finally:
        sc.pythonExec = kept


def times(n: int):
    """A function pickled by value (a closure), as one defined in a notebook or script is."""
    def multiply(v):
        return None if v is None else v * n
    return multiply


@pytest.mark.slow  # two restarts through Python workers of two interpreters
def test_a_python_udf_restarts_from_another_interpreter_path_and_is_refused_when_changed(spark, tmp_path):
    calls = ["sum(pyf(v))"]
    python_udf(spark, times(2))
    files, source, checkpoint, first = first_run(spark, tmp_path, h.query(calls))
    python_udf(spark, times(3))
    assert_refused(spark, source, checkpoint, h.query(calls), "sha256:")
    link = str(tmp_path / "python-elsewhere")
    os.symlink(sys.executable, link)
    python_udf(spark, times(2), exec_path=link)
    assert_restarts(spark, files, source, checkpoint, first, calls)


# --- What an aggregate is recorded to compute, by plan only ------------------------------------

def identity(spark, select: str, table: str = "sample") -> list:
    """What each aggregate of `SELECT <select> FROM <table>` is recorded to compute."""
    plan = spark.sql(f"SELECT {select} FROM {table}")._jdf.queryExecution().analyzed()
    jvm = spark._jvm
    out = []
    expressions = plan.aggregateExpressions()
    for i in range(expressions.size()):
        aggregate = expressions.apply(i).child()
        out.append(jvm.org.apache.spark.sql.slidingwindow.expressions.AggregateIdentity.of(aggregate).computes())
    return out


@pytest.fixture(scope="module")
def sample(spark):
    """Rows at times whose hour and day differ between UTC and Los Angeles, across a DST change."""
    rows = [("a", t, s, v, v / 4, [v, None] if v % 2 else None)
            for v, (t, s) in enumerate([("2024-03-10 09:30:00", "2024-03-10 01:30:00"),
                                       ("2024-03-10 23:10:05", "2024-11-03 08:59:59"),
                                       ("2024-07-01 03:00:00", "2025-01-01 00:00:00"),
                                       ("1999-12-31 23:59:59", "1970-01-01 12:00:00")], 1)]
    df = spark.createDataFrame(rows, "k STRING, t STRING, s STRING, v BIGINT, d DOUBLE, arr ARRAY<BIGINT>")
    df.selectExpr("k", "CAST(t AS TIMESTAMP) AS ts", "s", "v", "d", "arr").cache().createOrReplaceTempView("sample")
    yield
    spark.catalog.dropTempView("sample")


@pytest.mark.every_spark
def test_user_functions_are_named_by_what_they_run(spark, sample):
    """Each registered again under one name, as a restarted query would: the same function is
    recorded the same, another function otherwise."""
    from pyspark.sql.types import LongType

    udfs = spark._jvm.org.apache.spark.sql.slidingwindow.TestUdfs

    def under_one_name(register, choices) -> list:
        out = []
        for choice in choices:
            register(choice)
            out.extend(identity(spark, "sum(f(v))"))
        return out

    java = under_one_name(lambda c: spark.udf.registerJavaFunction("f", f"{UDFS}.{c}", LongType()),
                          ["TimesTwo", "TimesThree", "TimesTwo"])
    scaled = under_one_name(lambda c: udfs.registerScale(spark._jsparkSession, "f", c), [2, 3, 2])
    lambdas = under_one_name(lambda c: udfs.registerLambda(spark._jsparkSession, "f", c), [1, 2, 1])
    for one, other, again in (java, scaled, lambdas):
        assert one != other and one == again, (one, other)
    assert "TimesTwo" in java[0] and "factor=2" in scaled[0], (java[0], scaled[0])
    assert identity(spark, "typed_sum(v)") != identity(spark, "typed_concat(CAST(v AS STRING))")


@pytest.mark.every_spark
@pytest.mark.parametrize("pandas", [False, True], ids=["python", "pandas"])
def test_a_python_function_is_named_by_its_pickled_code(spark, sample, tmp_path, pandas):
    """A Python or pandas scalar UDF inside an aggregate (pandas aggregate UDFs are refused:
    WINDOW_UNSUPPORTED_AGGREGATE.NOT_IN_JVM)."""
    if pandas:
        pytest.importorskip("pyarrow")
    python_udf(spark, times(2), pandas=pandas)
    [base] = identity(spark, "sum(pyf(v))")
    link = str(tmp_path / "python-elsewhere")
    os.symlink(sys.executable, link)
    python_udf(spark, times(2), exec_path=link, pandas=pandas)
    assert identity(spark, "sum(pyf(v))") == [base]
    python_udf(spark, times(3), pandas=pandas)
    assert identity(spark, "sum(pyf(v))") != [base]
    assert "sha256:" in base and len(base) < 400, base


# Arguments tried for each function of the registry: every list that resolves is surveyed. The
# columns are IdentitySurvey.scala's: k, s STRING, ts TIMESTAMP, ntz TIMESTAMP_NTZ, dt DATE,
# v BIGINT, i INT, d DOUBLE, arr ARRAY<BIGINT>; some lists are constants only (Spark folds them).
ARGUMENTS = [["ts"], ["'HOUR'", "ts"], ["ts", "'yyyy-MM-dd HH'"], ["s"], ["s", "'yyyy-MM-dd HH:mm:ss'"],
             ["ts", "'America/New_York'"], ["'America/New_York'", "ts"], ["'UTC'", "'Asia/Tokyo'", "ts"],
             ["ts", "ts"], ["'DAY'", "ts", "ts"], ["'DAY'", "v", "ts"], ["ts", "v"], ["v"], ["d"], ["arr"],
             ["s", "v"], ["ts", "'day'"], ["'day'", "ts"],
             [], ["i"], ["dt"], ["dt", "i"], ["dt", "dt"], ["'DAY'", "dt"], ["dt", "'yyyy-MM-dd'"],
             ["ntz"], ["'HOUR'", "ntz"], ["ntz", "'America/New_York'"], ["'UTC'", "'Asia/Tokyo'", "ntz"],
             ["ts", "dt"], ["dt", "ts"], ["'2023-11-14 01:00:00'"], ["'2023-11-14'"],
             ["2023", "11", "14"], ["2023", "i", "14"], ["2023", "11", "14", "1", "0", "0"],
             ["2023", "11", "14", "i", "0", "0"], ["2023", "11", "14", "i", "0", "0", "'Asia/Tokyo'"]]
# Session settings that Spark keeps in the expressions it plans, each with two values.
SETTINGS = [("spark.sql.session.timeZone", "UTC", "America/Los_Angeles"),
            ("spark.sql.legacy.sizeOfNull", "true", "false")]
ZONE = SETTINGS[0]


def registry_functions(spark, groups=None) -> list:
    """The names of the registry's functions, but aggregate, window, generator and lambda ones;
    with `groups`, those of these groups only."""
    registry = spark._jsparkSession.sessionState().functionRegistry()
    names, out = registry.listFunction().iterator(), []
    while names.hasNext():
        f = names.next()
        group = registry.lookupFunction(f).get().getGroup()
        if (group in groups if groups else group not in ("agg_funcs", "window_funcs", "generator_funcs", "lambda_funcs")) \
                and f.funcName().replace("_", "").isalnum():
            out.append(f.funcName())
    return sorted(set(out))


def survey(spark) -> dict:
    """{call: (its values on the sample rows, its identity, its type)} for every function of the
    registry and argument list that resolves, under the session's settings (IdentitySurvey.scala)."""
    jvm = spark._jvm
    lines = jvm.org.apache.spark.sql.slidingwindow.expressions.IdentitySurvey.survey(
        spark._jsparkSession, registry_functions(spark), [", ".join(a) for a in ARGUMENTS])
    return {call: (computed, identity, type_) for call, computed, identity, type_ in (line.split("\t") for line in lines)}


SURVEYS = {}


def surveyed(spark) -> dict:
    """survey() under the session's current values of SETTINGS, each combination once per run
    (both settings' tests survey the defaults, UTC and sizeOfNull true)."""
    key = tuple(spark.conf.get(k) for k, _, _ in SETTINGS) + (spark.conf.get("spark.sql.ansi.enabled"),)
    if key not in SURVEYS:
        SURVEYS[key] = survey(spark)
    return SURVEYS[key]


def surveyed_under(spark, setting) -> tuple:
    """The surveys under the two values of `setting`, and the calls both resolve. ANSI off: legacy
    flags apply only there (size(NULL) is -1 under sizeOfNull, without ANSI)."""
    key, one, other = setting
    seen = []
    with session_conf(spark, "spark.sql.ansi.enabled", "false"):
        for value in (one, other):
            with session_conf(spark, key, value):
                seen.append(surveyed(spark))
    return seen[0], seen[1], sorted(set(seen[0]) & set(seen[1]))


@pytest.mark.every_spark
@pytest.mark.slow
@pytest.mark.xdist_group("identity_survey")  # one worker: the surveys of the defaults are shared
def test_a_legacy_setting_that_changes_what_an_expression_computes_changes_its_identity(spark, sample):
    key = SETTINGS[1][0]
    one, other, both = surveyed_under(spark, SETTINGS[1])
    changed = [c for c in both if one[c][0] != other[c][0] and not follows_clock(c)]
    missed = [c for c in changed if one[c][1] == other[c][1]]
    assert not missed, f"{key} changes what these compute, not what they are recorded to compute: {missed}"
    assert len(both) > 100 and changed, (len(both), changed)
    unchanged = [c for c in both if c not in changed and one[c][1] == other[c][1]]
    assert unchanged, "calls the setting does not change keep their identity"


TIME_TYPES = ("DATE", "TIMESTAMP", "TIME")  # TIMESTAMP_NTZ, and Spark 4.1's TIME(p), too
TIME_ARGUMENTS = {"ts", "dt", "ntz", "s", "'2023-11-14 01:00:00'", "'2023-11-14'"}  # s holds times as text

# Called without arguments, their values follow the clock, not only the zone: compared by the rule
# alone (current_date and localtimestamp read the zone, current_timestamp does not).
CLOCK = {"current_date", "curdate", "current_timestamp", "now", "localtimestamp", "current_time",
         "unix_timestamp"}
# Calls of these take no time and return none, and read the zone by the rule all the same: each
# reviewed. to_json formats the timestamps a struct may hold in it, sequence steps timestamps in it.
ZONE_READ_WITHOUT_TIME = {"to_json", "sequence"}
# Date and time functions of the registry that no argument list builds a call of: each reviewed.
UNBUILT = {
    # Rewrite the plan under them into windows of their own (refused in an aggregate's input).
    "window", "session_window", "window_time",
    # Of the TIME type (Spark 4.1), off unless spark.sql.timeType.enabled: a time of day, no zone.
    "make_time", "time_bucket", "time_diff", "time_from_micros", "time_from_millis", "time_from_seconds",
    "time_to_micros", "time_to_millis", "time_to_seconds", "time_trunc", "to_time", "try_to_time",
    # Of nanosecond timestamps (TIMESTAMP(7) to (9), Spark 4.3), which no column here holds.
    "unix_nanos",
}


def function_of(call: str) -> str:
    return call[:call.index("(")]


def follows_clock(call: str) -> bool:
    """Whether a call's values follow the clock: a clock function without arguments, or with
    arguments it ignores (Spark 4.0 builds `current_timestamp(x)`); `unix_timestamp(x)` reads x."""
    return function_of(call) in CLOCK and (call.endswith("()") or function_of(call) != "unix_timestamp")


def takes_or_returns_time(call: str, type_: str) -> bool:
    arguments = {a.strip() for a in call[call.index("(") + 1:-1].split(",")}
    return type_.startswith(TIME_TYPES) or bool(arguments & TIME_ARGUMENTS)


@pytest.mark.every_spark
@pytest.mark.xdist_group("identity_survey")
def test_the_session_time_zone_counts_wherever_a_call_can_depend_on_it(spark, sample):
    """Every call of the registry's functions under UTC and Los Angeles: where the values differ,
    the identities do (the restart is refused); where the call neither takes nor returns a time
    and its values are the same, so are the identities (the restart is accepted). A date or time
    function of a newer Spark that no argument list builds fails the survey until it is built or
    reviewed into UNBUILT."""
    utc, la, both = surveyed_under(spark, ZONE)
    timed = [c for c in both if takes_or_returns_time(c, utc[c][2])]
    changed = [c for c in both if utc[c][0] != la[c][0] and not follows_clock(c)]
    missed = [c for c in changed if utc[c][1] == la[c][1]]
    assert not missed, f"the zone changes what these compute, not what they are recorded to compute: {missed}"
    timeless = [c for c in both if c not in timed and not follows_clock(c) and utc[c][0] == la[c][0]]
    unseen = sorted({function_of(c) for c in timeless if utc[c][1] != la[c][1]} - ZONE_READ_WITHOUT_TIME)
    assert not unseen, f"recorded with the zone, though they take and return no time: {unseen}"
    assert len(timed) > 1000 and len(changed) > 200 and len(timeless) > 300, (len(timed), len(changed), len(timeless))
    built = {function_of(c) for c in both}
    datetime_funcs = set(registry_functions(spark, groups=("datetime_funcs",)))
    unbuilt = sorted(datetime_funcs - built - UNBUILT)
    assert not unbuilt, f"date and time functions no argument list builds: {unbuilt}"
    assert "make_timestamp(2023, 11, 14, 1, 0, 0)" in changed, "constants folded in the zone count"


def test_a_setting_an_aggregate_reads_counts_against_spark_default(spark, sample):
    """stddev of one row is NULL, or NaN under the legacy setting that its flag's default reads."""
    [default] = identity(spark, "stddev(d)")
    with session_conf(spark, "spark.sql.legacy.statisticalAggregate", "true"):
        [legacy] = identity(spark, "stddev(d)")
    assert default != legacy and "nullOnDivideByZero=false" in legacy, (default, legacy)
