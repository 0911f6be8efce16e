"""Trailing windows in batch queries (docs/trailing-windows.md): Spark's own `agg OVER (PARTITION
BY k ORDER BY ts RANGE BETWEEN <size> PRECEDING AND CURRENT ROW)`, which the extension plans as
one TrailingWindow operator for every size. Checked on random inputs against the frames of
tests/support/reference.py and against Spark's own Window operator (the extension's planning
turned off) on the same DataFrame."""
from __future__ import annotations

import datetime
import decimal
import math
import random
import statistics
from typing import List

import pytest
from pyspark.sql import Row

from reference import trailing_frames
from trailing_harness import frame_query, tag_of
from streaming_harness import session_conf
from windows_util import find_node

TRAILING_CONF = "spark.sql.slidingWindow.trailingWindows.batch"
SEC = 1_000_000
BASE = datetime.datetime(2024, 3, 1, tzinfo=datetime.timezone.utc)
SIZES = {"10 seconds": 10 * SEC, "1 minute": 60 * SEC, "0 seconds": 0}


def random_rows(rng: random.Random, n: int) -> List[tuple]:
    keys = ["a", "b", "c", None]
    rows = []
    for i in range(n):
        t = None if rng.random() < 0.03 else rng.choice([rng.randrange(0, 300), rng.randrange(0, 300) * SEC // 2]) * (SEC // 4 if rng.random() < 0.5 else 1)
        v = None if rng.random() < 0.1 else rng.randrange(-50, 100)
        rows.append((i, rng.choice(keys), t, v))
    return rows


def as_micros(ts) -> int:
    return None if ts is None else round((ts - BASE).total_seconds() * SEC)


def reference(rows, sizes) -> dict:
    """Each row's results by the definition; `sizes` maps a frame's name to its size, or to
    (size, lag)."""
    out = {}
    for name, span in sizes.items():
        tag = tag_of(name)
        size, lag = span if isinstance(span, tuple) else (span, 0)
        for r, frame in zip(rows, trailing_frames(rows, size, key=lambda x: x[1], time=lambda x: x[2], lag=lag)):
            vs = [f[3] for f in frame if f[3] is not None]
            out.setdefault(r[0], {}).update({
                f"n_{tag}": len(frame), f"c_{tag}": len(vs), f"s_{tag}": sum(vs) if vs else None,
                f"lo_{tag}": min(vs) if vs else None, f"hi_{tag}": max(vs) if vs else None,
                f"a_{tag}": sum(vs) / len(vs) if vs else None, f"l_{tag}": sorted(vs),
                f"d_{tag}": decimal.Decimal(sum(vs)).quantize(decimal.Decimal("0.01")) if vs else None,
                f"t_{tag}": sum(vs), f"sd_{tag}": statistics.stdev(vs) if len(vs) > 1 else None})
    return out


def result(df) -> dict:
    return {r["id"]: {c: r[c] for c in df.columns if c not in ("id", "k", "ts", "v")} for r in df.collect()}


def same(a: dict, b: dict) -> bool:
    """Equal results (floating point within 1e-9), the first difference printed."""
    if a.keys() != b.keys():
        print("rows differ:", sorted(a.keys() ^ b.keys())[:10])
        return False
    for i in a:
        for c, x in a[i].items():
            y = b[i][c]
            if isinstance(x, float) or isinstance(y, float):
                equal = (x is None) == (y is None) and (x is None or math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9))
            else:
                equal = x == y
            if not equal:
                print(f"row {i}, column {c}: {x!r} != {y!r}")
                return False
    return True


def plan_text(df) -> str:
    return df._jdf.queryExecution().executedPlan().toString()


@pytest.mark.every_spark
@pytest.mark.parametrize("seed", range(6))
def test_trailing_frames_equal_the_definition_and_sparks_own_window(spark, seed):
    """Three sizes (0, 10 seconds, 1 minute) of ten aggregates in one query, on TIMESTAMP (even
    seeds) and TIMESTAMP_NTZ (odd seeds) times with equal and null times and a null key."""
    rng = random.Random(seed)
    rows = random_rows(rng, rng.choice([40, 200, 600]))
    df = spark.createDataFrame(
        [(i, k, None if t is None else BASE + datetime.timedelta(microseconds=t), v) for i, k, t, v in rows],
        "id int, k string, ts timestamp, v int")
    if seed % 2:  # TIMESTAMP_NTZ: the same frames
        df = df.selectExpr("id", "k", "CAST(ts AS TIMESTAMP_NTZ) AS ts", "v")
    df.createOrReplaceTempView("events")
    query = frame_query("events", SIZES)
    ours = spark.sql(query)
    assert "TrailingWindow" in plan_text(ours) and "WindowExec" not in plan_text(ours)
    got = result(ours)
    assert same(got, reference(rows, SIZES)), "differs from the definition"
    with session_conf(spark, TRAILING_CONF, "false"):
        theirs = spark.sql(query)
        assert "TrailingWindow" not in plan_text(theirs)
        assert same(got, result(theirs)), "differs from Spark's Window"


def test_other_windows_are_left_to_spark(spark):
    """ROWS frames, FOLLOWING, ranking functions and a descending order run in Spark's Window."""
    spark.createDataFrame([(1, "a", BASE, 1)], "id int, k string, ts timestamp, v int").createOrReplaceTempView("one")
    for expression in ["count(*) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)",
                       "count(*) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL 1 MINUTE PRECEDING AND INTERVAL 1 MINUTE FOLLOWING)",
                       "row_number() OVER (PARTITION BY k ORDER BY ts)",
                       "count(*) OVER (PARTITION BY k ORDER BY ts DESC RANGE BETWEEN INTERVAL 1 MINUTE PRECEDING AND CURRENT ROW)",
                       "count(*) OVER (PARTITION BY k ORDER BY v RANGE BETWEEN 2 PRECEDING AND CURRENT ROW)"]:
        df = spark.sql(f"SELECT {expression} AS x FROM one")
        assert "TrailingWindow" not in plan_text(df), expression
        assert df.collect() == [Row(x=1)]


@pytest.mark.every_spark
def test_a_pandas_aggregate_over_trailing_frames_is_sparks_own_window(spark):
    """A pandas aggregate (Series to float) over trailing frames, from the helper and in SQL once
    registered, next to a built-in aggregate: Spark's own Python window operator computes it (its
    Window of Python functions left whole), the extension's TrailingWindow the built-in one, both
    equal to the definition."""
    pytest.importorskip("pyarrow")
    from pyspark.sql import functions as F

    import sliding_window_agg as swa
    from python_aggregates import pandas_mean

    pmean = pandas_mean(spark, "trailing_pmean")
    rows = [r for r in random_rows(random.Random(11), 120) if r[3] is not None]
    df = spark.createDataFrame(
        [(i, k, None if t is None else BASE + datetime.timedelta(microseconds=t), v) for i, k, t, v in rows],
        "id int, k string, ts timestamp, v int")
    df.createOrReplaceTempView("pandas_events")
    expected = {i: {"m": r["a_10"], "n": r["n_10"]} for i, r in reference(rows, {"10 seconds": 10 * SEC}).items()}
    window = swa.trailing_window("k", "ts", "10 seconds")
    for query in (df.select("id", pmean("v").over(window).alias("m"), F.count("*").over(window).alias("n")),
                  spark.sql("SELECT id, trailing_pmean(v) OVER w AS m, count(*) OVER w AS n FROM pandas_events "
                            "WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL 10 SECONDS PRECEDING "
                            "AND CURRENT ROW)")):
        plan = plan_text(query)
        assert "TrailingWindow" in plan and ("ArrowWindowPython" in plan or "WindowInPandas" in plan), plan
        assert same(result(query), expected)


def test_the_smallest_bigint_time_is_a_row_like_any_other(spark):
    """A BIGINT order may hold Long.MinValue, which the operator also uses for "no watermark":
    its rows are output, with their frames, as Spark's Window gives them."""
    low = -(2 ** 63)
    spark.createDataFrame([(1, low), (2, low), (3, low + 1), (4, 0), (5, None)],
                          "id int, t bigint").createOrReplaceTempView("lowest")
    df = spark.sql("SELECT id, count(*) OVER (ORDER BY t RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS peers, "
                   "sum(id) OVER (ORDER BY t RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) AS ids FROM lowest")
    assert "TrailingWindow" in plan_text(df)
    ours = sorted(df.collect())
    with session_conf(spark, TRAILING_CONF, "false"), session_conf(spark, "spark.sql.ansi.enabled", "false"):
        sparks = sorted(spark.sql("SELECT id, count(*) OVER (ORDER BY t RANGE BETWEEN CURRENT ROW AND CURRENT ROW) "
                                  "AS peers FROM lowest").collect())
    assert [(r.id, r.peers) for r in ours] == [(r.id, r.peers) for r in sparks]
    assert [(r.id, r.ids) for r in ours] == [(1, 3), (2, 3), (3, 6), (4, 4), (5, 5)]


def test_the_dataframe_helper_gives_the_frames_of_sql(spark):
    """`trailing_window(keys, time, size)`: PySpark's `rangeBetween` over `unix_micros(time)`,
    the same rows as SQL's interval frame, planned as a TrailingWindow too."""
    from pyspark.sql import functions as F
    import sliding_window_agg as swa

    rng = random.Random(7)
    rows = random_rows(rng, 300)
    df = spark.createDataFrame(
        [(i, k, None if t is None else BASE + datetime.timedelta(microseconds=t), v) for i, k, t, v in rows],
        "id int, k string, ts timestamp, v int")
    w10, w60 = swa.trailing_window("k", "ts", "10 seconds"), swa.trailing_window(["k"], F.col("ts"), datetime.timedelta(minutes=1))
    ours = df.select("id", "k", "ts", "v",
                     F.count("*").over(w10).alias("n_10"), F.count("v").over(w10).alias("c_10"),
                     F.sum("v").over(w10).alias("s_10"), F.min("v").over(w10).alias("lo_10"),
                     F.max("v").over(w10).alias("hi_10"), F.avg("v").over(w10).alias("a_10"),
                     F.sort_array(F.collect_list("v").over(w10)).alias("l_10"),
                     F.sum(F.col("v").cast("decimal(10,2)")).over(w10).alias("d_10"),
                     F.count("*").over(w60).alias("n_1"), F.sum("v").over(w60).alias("s_1"))
    assert "TrailingWindow" in plan_text(ours) and "WindowExec" not in plan_text(ours)
    want = reference(rows, {"10 seconds": 10 * SEC, "1 minute": 60 * SEC})
    want = {i: {c: v for c, v in cols.items() if c in ours.columns} for i, cols in want.items()}
    got = result(ours)
    assert same(got, want)
    with session_conf(spark, TRAILING_CONF, "false"):
        assert "TrailingWindow" not in plan_text(ours.select("*"))
        assert same(got, result(ours.select("*"))), "differs from Spark's Window"
    with pytest.raises(Exception, match="VALUE_NOT_ALLOWED"):
        swa.trailing_window("k", "ts", "1 month")
    assert same(result(df.select("id", F.count("*").over(swa.trailing_window("k", "ts", "10s")).alias("n_10"))),
                {i: {"n_10": c["n_10"]} for i, c in want.items()})

    # The Scala helper (org.apache.spark.sql.slidingwindow.api.functions.trailing_window).
    from pyspark.sql.window import WindowSpec
    jvm = spark._jvm
    scala_w10 = WindowSpec(jvm.org.apache.spark.sql.slidingwindow.api.functions.trailing_window(
        jvm.org.apache.spark.api.python.PythonUtils.toSeq([F.col("k")._jc]), F.col("ts")._jc, "10 seconds"))
    scala = df.select("id", F.count("*").over(scala_w10).alias("n_10"), F.sum("v").over(scala_w10).alias("s_10"))
    assert "TrailingWindow" in plan_text(scala)
    assert same(result(scala), {i: {"n_10": c["n_10"], "s_10": c["s_10"]} for i, c in want.items()})
    with pytest.raises(Exception, match="WINDOW_INVALID_SIZE"):
        jvm.org.apache.spark.sql.slidingwindow.api.functions.trailing_window(
            jvm.org.apache.spark.api.python.PythonUtils.toSeq([F.col("k")._jc]), F.col("ts")._jc, "1 month")


DURATION_TEXTS = ["10 seconds", "30s", "5min", "5m", "250ms", "10us", "2h", "1d", " 2H ", "1 hour 30 minutes",
                  "INTERVAL 5 MINUTES", "interval 1 day -1 hour", "1.5 seconds", "+5 minutes", "1 week", "0s",
                  "-5s", "10", "1.5", "", "banana", "5 s", "10 min", "30 secs", "1 month", "1 year", "1 hour 30m"]


@pytest.mark.parametrize("text", DURATION_TEXTS)
def test_the_dataframe_helper_reads_a_size_as_every_duration_is_read(spark, text):
    """`trailing_window`'s size (parsed in Python) follows the rule of every duration of the
    extension (docs/user-guide.md, "Durations"): the same microseconds as the Scala side
    (DurationText, which reads sizes and the idle timeout), and refused where it refuses."""
    import sliding_window_agg as swa
    from pyspark.errors import PySparkValueError

    scala = spark._jvm.org.apache.spark.sql.slidingwindow.expressions.DurationText.toMicros(text)
    want = scala.toOption().get() if scala.isRight() and scala.toOption().get() >= 0 else None
    try:
        got = swa._duration.micros(text)
    except PySparkValueError:
        got = None
    assert got == want


def test_many_rows_at_one_time_spill_as_in_sparks_window(spark):
    """The rows of one time wait in Spark's spillable buffer, with Spark's Window limits: past
    them they go to disk, and the results do not change."""
    rng = random.Random(3)
    rows = [(i, rng.choice(["a", "b"]), rng.choice([None, 0, SEC, 5 * SEC]), rng.randrange(10)) for i in range(400)]
    df = spark.createDataFrame(
        [(i, k, None if t is None else BASE + datetime.timedelta(microseconds=t), v) for i, k, t, v in rows],
        "id int, k string, ts timestamp, v int")
    df.createOrReplaceTempView("crowded")
    sizes = {"10 seconds": 10 * SEC, "0 seconds": 0}
    with session_conf(spark, "spark.sql.windowExec.buffer.in.memory.threshold", "2"), \
            session_conf(spark, "spark.sql.windowExec.buffer.spill.threshold", "4"):
        ours = spark.sql(frame_query("crowded", sizes))
        assert "TrailingWindow" in plan_text(ours)
        assert same(result(ours), reference(rows, sizes))


@pytest.mark.parametrize("seed,spilled", [(0, False), (1, False), (2, False), (3, True)])
def test_frames_that_end_before_the_row(spark, seed, spilled):
    """`RANGE BETWEEN a PRECEDING AND b PRECEDING`: the frame [t - a, t - b], which may hold no
    row (count 0, sum NULL), beside frames up to the current row in one operator. `spilled`: with
    no memory for sealed chunks of 64 bytes, a frame's queue and the FIFO of its waiting partials
    go to disk and come back."""
    if spilled:
        before = disk_bytes_spilled(spark)
        with session_conf(spark, "spark.sql.slidingWindow.buffer.chunkBytes", "64b"), \
                session_conf(spark, "spark.sql.slidingWindow.buffer.memory", "0b"):
            check_frames_that_end_before_the_row(spark, seed)
        assert disk_bytes_spilled(spark) > before
    else:
        check_frames_that_end_before_the_row(spark, seed)


def disk_bytes_spilled(spark) -> int:
    """The bytes the session's stages spilled to disk so far (Spark's status store)."""
    store = spark._jsc.sc().statusStore()
    stages = store.stageList(spark._jvm.java.util.ArrayList(), *(getattr(store, f"stageList$default${i}")() for i in (2, 3, 4, 5)))
    return sum(stages.apply(i).diskBytesSpilled() for i in range(stages.size()))


def check_frames_that_end_before_the_row(spark, seed):
    rng = random.Random(100 + seed)
    rows = random_rows(rng, rng.choice([60, 300]))
    df = spark.createDataFrame(
        [(i, k, None if t is None else BASE + datetime.timedelta(microseconds=t), v) for i, k, t, v in rows],
        "id int, k string, ts timestamp, v int")
    df.createOrReplaceTempView("lagged")
    sizes = {"60 seconds/10 seconds": (60 * SEC, 10 * SEC), "10 seconds/10 seconds": (10 * SEC, 10 * SEC),
             "10 seconds": 10 * SEC}
    query = frame_query("lagged", sizes)
    ours = spark.sql(query)
    assert "TrailingWindow" in plan_text(ours) and "WindowExec" not in plan_text(ours)
    assert "to 10 seconds before" in plan_text(ours)
    got = result(ours)
    assert same(got, reference(rows, sizes)), "differs from the definition"
    with session_conf(spark, TRAILING_CONF, "false"):
        assert same(got, result(spark.sql(query))), "differs from Spark's Window"


def test_explain_formatted_and_sql_metrics(spark):
    """EXPLAIN FORMATTED names the partition, the order and each frame with its columns; the SQL
    metrics count the rows written and the partitions of the window."""
    spark.createDataFrame([(i, "ab"[i % 2], BASE + datetime.timedelta(seconds=i), i) for i in range(9)],
                          "id int, k string, ts timestamp, v int").createOrReplaceTempView("explained")
    query = ("SELECT id, count(*) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL 10 SECONDS PRECEDING AND CURRENT ROW) AS n, "
             "sum(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL 10 SECONDS PRECEDING AND INTERVAL 2 SECONDS PRECEDING) AS s "
             "FROM explained")
    plan = spark.sql("EXPLAIN FORMATTED " + query).collect()[0][0]
    block = plan[plan.index(") TrailingWindow\n"):]
    lines = block[:block.index("\n\n")].split("\n")
    assert lines[1].startswith("Input [4]: [id#")
    assert lines[2].startswith("Partition [1]: [k#")
    assert lines[3].startswith("Order [1]: [ts#") and "ASC NULLS FIRST" in lines[3]
    assert lines[4].startswith("Frame 10 seconds [1]: [count(1) ") and " AS n#" in lines[4]
    assert lines[5].startswith("Frame 10 seconds to 2 seconds before [1]: [sum(v#")

    with session_conf(spark, "spark.sql.adaptive.enabled", "false"):  # metrics read from the plan tree
        df = spark.sql(query)
        assert len(df.collect()) == 9
    plan = df._jdf.queryExecution().executedPlan()
    node = find_node(plan, "TrailingWindow")
    assert node is not None
    assert node.metrics().apply("numOutputRows").value() == 9
    assert node.metrics().apply("numGroups").value() == 2



def test_a_scalar_subquery_in_an_aggregate_input(spark):
    """Spark plans the subqueries of a physical plan's expressions: those of the frames too."""
    spark.createDataFrame([(i, "ab"[i % 2], BASE + datetime.timedelta(seconds=i), i) for i in range(6)],
                          "id int, k string, ts timestamp, v int").createOrReplaceTempView("sub_events")
    df = spark.sql("SELECT id, sum(v * (SELECT max(v) FROM sub_events)) OVER (PARTITION BY k ORDER BY ts "
                   "RANGE BETWEEN INTERVAL 2 SECONDS PRECEDING AND CURRENT ROW) AS s FROM sub_events")
    assert "TrailingWindow" in plan_text(df)
    # k = a: ids 0, 2, 4 at seconds 0, 2, 4; k = b: ids 1, 3, 5; max(v) = 5
    assert {r["id"]: r["s"] for r in df.collect()} == {0: 0, 1: 5, 2: 10, 3: 20, 4: 30, 5: 40}
