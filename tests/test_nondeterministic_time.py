"""A nondeterministic time column (Issue 15): grouped by sliding_window or batch_window, its time
is evaluated once per row, as Spark's window() evaluates it, in SQL and in the DataFrame API."""
from __future__ import annotations

import pytest
from pyspark.sql import functions as F

import sliding_window_agg as swa
from windows_util import reference_windows, rows_by_window, window_micros

SEC = 1_000_000
TIME_SQL = "timestamp_seconds(CAST(rand(7) * 100 AS INT))"


def time_column():
    return F.timestamp_seconds((F.rand(7) * 100).cast("int"))


def input_rows(spark):
    # One partition: rand(7) gives every row the same value in every query over it.
    return spark.range(0, 300, 1, 1).withColumn("k", (F.col("id") % 3).cast("string"))


def aggregated(df, window):
    return (df.groupBy("k", window.alias("w"))
            .agg(F.count("*").alias("n"), F.collect_list("id").alias("ids"))
            .select("k", *window_micros("w"), "n", "ids"))


def results(rows):
    return {w: (r.n, sorted(r.ids)) for w, r in rows_by_window(rows, ["k"]).items()}


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
@pytest.mark.parametrize("form", ["sql", "dataframe"])
def test_time_is_evaluated_once_per_row(spark, function, form):
    df = input_rows(spark)
    if form == "sql":
        df.createOrReplaceTempView("nondeterministic_events")
        query = spark.sql(f"""
            SELECT k, {function}({TIME_SQL}, '10 seconds') AS w, count(*) AS n,
                   collect_list(id) AS ids
            FROM nondeterministic_events GROUP BY k, {function}({TIME_SQL}, '10 seconds')
            """).select("k", *window_micros("w"), "n", "ids")
    else:
        query = aggregated(df, getattr(swa, function)(time_column(), "10 seconds"))
    # The same times, evaluated first and kept.
    materialized = df.withColumn("t", time_column()).localCheckpoint()
    times = materialized.select("k", F.unix_micros("t").alias("t"), "id").collect()
    events = [(0, r.k, r.t, r.id, r.id) for r in times]
    assert len({e[2] for e in events}) > 50  # the times do vary

    got = results(query.collect())
    expected = reference_windows(function, events, 10 * SEC)
    assert got == {w: (len(m), sorted(e[4] for e in m)) for w, m in expected.items()}
    assert got == results(aggregated(materialized, getattr(swa, function)("t", "10 seconds")).collect())
    # Computed once, below the aggregation.
    plan = query._jdf.queryExecution().optimizedPlan().toString()
    assert plan.count("rand(7)") == 1, plan


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
def test_unseeded_time_only_in_group_by(spark, function):
    input_rows(spark).createOrReplaceTempView("nondeterministic_events")
    n = spark.sql(f"""
        SELECT sum(n) AS n FROM (
          SELECT count(*) AS n FROM nondeterministic_events
          GROUP BY {function}(timestamp_seconds(CAST(rand() * 100 AS INT)), '10 seconds'))
        """).first().n
    assert n >= 300  # every row is in a window (sliding windows hold rows more than once)


def test_nondeterministic_order_column(spark):
    """batch_window's order column may be nondeterministic too: computed once per row."""
    df = input_rows(spark).withColumn("ts", F.timestamp_seconds(F.col("id")))
    query = aggregated(df, swa.batch_window("ts", "10 seconds", F.rand(3)))
    materialized = df.withColumn("o", F.rand(3)).localCheckpoint()
    assert results(query.collect()) == results(
        aggregated(materialized, swa.batch_window("ts", "10 seconds", "o")).collect())
