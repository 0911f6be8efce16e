"""Batch windows (docs/contract.md, "Batch windows") in batch queries: the KIP's example, randomized
inputs against the brute-force reference (tests/support/reference.py), equality with a tumbling window()
when rows are applied in time order, the `order` argument, both timestamp types, SQL, PySpark and
Scala."""
from __future__ import annotations

import random

import pytest
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

import sliding_window_agg as swa
from reference import batch_windows
from windows_util import events_df, rows_by_window, window_micros

SEC = 1_000_000
SIZES = {"1 microsecond": 1, "7 microseconds": 7, "1 second": SEC, "5 seconds": 5 * SEC,
         "1 day": 86400 * SEC}


def generate_cases(rng: random.Random, size: int, cases: int = 40):
    """Inputs whose arrival order (`id`) is not their time order: rows late by up to several
    sizes, duplicate times, negative times, null times and keys."""
    events, next_id = [], 0
    for case in range(cases):
        keys = rng.sample(["a", "b", "c", None], rng.randint(1, 3))
        clock = rng.randint(-20 * size, 20 * size)
        times = []
        for _ in range(rng.randint(1, 25)):
            clock += rng.choice([0, 0, 1, size // 3 or 1, size, 2 * size])
            r = rng.random()
            if r < 0.05:
                t = None
            elif times and r < 0.25:
                t = rng.choice(times)
            elif r < 0.6:
                t = clock
            else:
                t = clock - rng.randint(1, 3 * size)  # late: arrives after newer rows
            times += [t] if t is not None else []
            events.append((case, rng.choice(keys), t, rng.randint(-50, 50), next_id))
            next_id += 1
    return events


def aggregated(df, window):
    return (df.groupBy("case", "k", window)
            .agg(F.count("*").alias("n"), F.sum("v").alias("total"), F.max("v").alias("hi"),
                 F.collect_list("id").alias("ids")))


def check_against_reference(rows, expected, in_order: bool):
    got = rows_by_window(rows, ["case", "k"])
    expected = {(k[0], k[1], s, e): m for (k, s, e), m in expected.items()}
    assert set(got) == set(expected)
    for w, members in expected.items():
        r = got[w]
        vs = [m[3] for m in members]
        assert (r.n, r.total, r.hi) == (len(vs), sum(vs), max(vs)), w
        ids = [m[4] for m in members]
        # collect_list sees the rows in the order they were applied (ties: any order)
        assert sorted(r.ids) == sorted(ids), w
        if in_order:
            assert list(r.ids) == ids, w


@pytest.mark.every_spark
@pytest.mark.parametrize("size_text", [
    pytest.param(s, marks=pytest.mark.slow) if SIZES[s] < 1000 else s for s in SIZES])  # tiny sizes: many windows
def test_time_order_matches_reference_and_tumbling_window(spark, size_text):
    size = SIZES[size_text]
    events = generate_cases(random.Random(f"batch-{size_text}"), size)
    df = events_df(spark, events)
    ours = aggregated(df, swa.batch_window("ts", size_text)).select(
        "case", "k", *window_micros("batch_window"), "n", "total", "hi", "ids")
    check_against_reference(
        ours.collect(),
        batch_windows(events, size, key=lambda r: (r[0], r[1]), time=lambda r: r[2]),
        in_order=False)
    # Applied in time order, batch windows are tumbling windows: the same rows exactly.
    tumbling = aggregated(df, F.window("ts", size_text)).select(
        "case", "k", *window_micros("window"), "n", "total", "hi", F.array_sort("ids").alias("ids"))
    ours_sorted = ours.withColumn("ids", F.array_sort("ids"))
    assert ours_sorted.count() == tumbling.count() > 0
    assert ours_sorted.exceptAll(tumbling).count() == 0 and tumbling.exceptAll(ours_sorted).count() == 0


@pytest.mark.parametrize("size_text", ["7 microseconds", "5 seconds"])
def test_order_column_gives_arrival_order(spark, size_text):
    """With `order`, late rows go to the window of the stream time when they arrive."""
    size = SIZES[size_text]
    events = generate_cases(random.Random(f"batch-order-{size_text}"), size)
    # Some null orders too: they sort first, as ORDER BY does.
    df = events_df(spark, events).withColumn(
        "arrival", F.when(F.col("id") % 17 == 5, F.lit(None)).otherwise(F.col("id")))
    out = aggregated(df, swa.batch_window("ts", size_text, "arrival")).select(
        "case", "k", *window_micros("batch_window"), "n", "total", "hi", "ids")
    expected = batch_windows(events, size, key=lambda r: (r[0], r[1]), time=lambda r: r[2],
                             order=lambda r: None if r[4] % 17 == 5 else r[4])
    check_against_reference(out.collect(), expected, in_order=True)
    # The late rows really moved: the result differs from tumbling windows.
    tumbling = batch_windows(events, size, key=lambda r: (r[0], r[1]), time=lambda r: r[2])
    assert expected != tumbling


def test_the_kips_use_collect_rows_per_key_into_batches(spark):
    """Arrival order (offset) a@10 a@3 a@12 a@2 b@7 a@26 (seconds), size 5 s: the rows that are
    late (3 s, 2 s) join the current batch of their key instead of being dropped."""
    rows = [("a", 1, 10), ("a", 2, 3), ("a", 3, 12), ("a", 4, 2), ("b", 5, 7), ("a", 6, 26)]
    df = (spark.createDataFrame(rows, "k string, offset int, t int")
          .withColumn("ts", F.timestamp_seconds("t")))
    df.createOrReplaceTempView("kip_events")
    got = spark.sql("""
        SELECT k, unix_seconds(w.start) AS s, unix_seconds(w.end) AS e, batch
        FROM (SELECT k, batch_window(ts, '5 seconds', offset) AS w,
                     collect_list(offset) AS batch
              FROM kip_events GROUP BY k, batch_window(ts, '5 seconds', offset))
        ORDER BY k, s""").collect()
    assert [tuple(r) for r in got] == [("a", 10, 15, [1, 2, 3, 4]), ("a", 25, 30, [6]),
                                       ("b", 5, 10, [5])]
    # Without `order`, rows are applied in time order: tumbling windows.
    by_time = (df.groupBy("k", swa.batch_window("ts", "5 seconds"))
               .agg(F.sort_array(F.collect_list("offset")).alias("batch"))
               .select("k", F.unix_seconds("batch_window.start").alias("s"), "batch")
               .orderBy("k", "s").collect())
    assert [tuple(r) for r in by_time] == [("a", 0, [2, 4]), ("a", 10, [1, 3]), ("a", 25, [6]),
                                           ("b", 5, [5])]


def test_timestamp_ntz_in_timestamp_ntz_out(spark):
    events = [(0, "a", 3 * SEC, 1, 1), (0, "a", 9 * SEC, 2, 2)]
    df = events_df(spark, events, ntz=True)
    out = df.groupBy("k", swa.batch_window("ts", "5 seconds")).count()
    assert out.schema["batch_window"].dataType.simpleString() == \
        "struct<start:timestamp_ntz,end:timestamp_ntz>"
    got = sorted((r.s, r.e, r["count"]) for r in out.select(*window_micros("batch_window"), "count").collect())
    assert got == [(0, 5 * SEC, 1), (5 * SEC, 10 * SEC, 1)]


def test_scala_api_and_explain(spark):
    """The Scala functions build the same plan; explain() names the operator, size and order."""
    jvm = spark._jvm
    jdf = events_df(spark, [(0, "a", 1, 1, 1), (0, "a", 9, 2, 2)])._jdf
    scala = jvm.org.apache.spark.sql.slidingwindow.api.functions
    grouped = jdf.groupBy(jvm.PythonUtils.toSeq([jdf.col("k"), scala.batch_window("ts", "5 microseconds", "id")]))
    plan = grouped.count().queryExecution().executedPlan().toString()
    assert "BatchWindowAggregate(keys=[k" in plan and "size=5 microseconds" in plan
    assert "order=id" in plan
    out = DataFrame(grouped.count(), spark).select(*window_micros("batch_window"), "count")
    assert sorted(tuple(r) for r in out.collect()) == [(0, 5, 1), (5, 10, 1)]


def test_every_aggregate_kind(spark):
    """Declarative, imperative (percentile), typed (collect_set) aggregates and FILTER."""
    events = [(0, "a", t, v, i) for i, (t, v) in enumerate([(1, 5), (2, 7), (6, 1), (7, 3), (3, 9)])]
    events_df(spark, events).createOrReplaceTempView("bw_all")
    got = spark.sql("""
        SELECT unix_micros(batch_window(ts, '5 microseconds', arrival).start) AS s, count(*) AS n, avg(v) AS mean,
               percentile(v, 0.5) AS median, sort_array(collect_set(v)) AS vs,
               count(*) FILTER (WHERE v > 4) AS big, first(v) AS first_v
        FROM (SELECT *, id AS arrival FROM bw_all)
        GROUP BY k, batch_window(ts, '5 microseconds', arrival)
        ORDER BY s""").collect()
    # arrival order: 1, 2, 6 (opens [5, 10)), 7, 3 (late: stream time is 7) -> [0,5): ids 0, 1
    assert [tuple(r) for r in got] == [(0, 2, 6.0, 6.0, [5, 7], 2, 5),
                                       (5, 3, 13 / 3, 3.0, [1, 3, 9], 1, 1)]
