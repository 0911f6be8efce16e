"""Sliding windows in batch queries: the contract's example, SQL and DataFrame forms, aggregates of
every kind, timestamp types, grouping shapes and the plan (explain, metrics)."""
from __future__ import annotations

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, TimestampNTZType, TimestampType

import sliding_window_agg as swa
from reference import sliding_windows
from spec_example import EVENT_WINDOWS as SPEC_TABLE  # window, rows (as values: A=1 ... E=5)
from spec_example import EVENTS as SPEC_ROWS
from windows_util import events_df, find_node, reference_windows, rows_by_window, window_micros


def test_spec_example_table(spark):
    events_df(spark, SPEC_ROWS).createOrReplaceTempView("spec_events")
    rows = spark.sql(
        """
        SELECT unix_micros(w.start) AS s, unix_micros(w.end) AS e, n, total, hi, vs
        FROM (SELECT sliding_window(ts, '10 microseconds') AS w, count(*) AS n, sum(v) AS total,
                     max(v) AS hi, collect_list(v) AS vs
              FROM spec_events GROUP BY k, sliding_window(ts, '10 microseconds'))
        ORDER BY s
        """
    ).collect()
    assert [((r.s, r.e), list(r.vs)) for r in rows] == SPEC_TABLE
    assert [r.n for r in rows] == [len(vs) for _, vs in SPEC_TABLE]
    assert [r.total for r in rows] == [sum(vs) for _, vs in SPEC_TABLE]
    assert [r.hi for r in rows] == [max(vs) for _, vs in SPEC_TABLE]


def test_issue_query_matches_reference_in_seconds(spark):
    """The acceptance query of the issue, on second-scale data with a null time and two keys."""
    sec = 1_000_000
    base = 1_700_000_000 * sec
    events = [(0, "a", base + s * sec, v, i) for i, (s, v) in
              enumerate([(10, 1), (14, 2), (17, 3), (25, 4), (31, 5), (31, 6)])]
    events += [(0, "b", base + 3 * sec, 10, 100), (0, "b", None, 99, 101), (0, None, base, 7, 102)]
    events_df(spark, events).createOrReplaceTempView("issue_events")
    rows = spark.sql(
        """
        SELECT k, sliding_window(ts, '10 seconds') AS sliding_window, count(*) AS n, sum(v) AS total,
               max(v) AS hi, collect_list(v) AS vs
        FROM issue_events GROUP BY k, sliding_window(ts, '10 seconds')
        """
    ).select("k", *window_micros(), "n", "total", "hi", "vs").collect()
    expected = reference_windows("sliding_window", events, 10 * sec)
    got = rows_by_window(rows, ["k"])
    assert set(got) == set(expected)
    for w, members in expected.items():
        values = [m[3] for m in members]
        r = got[w]
        assert (r.n, r.total, r.hi, sorted(r.vs)) == (len(values), sum(values), max(values), sorted(values))
    assert all(r.k != "b" or r.n == 1 for r in rows)  # b's null-time row is in no window


def test_sql_and_dataframe_forms_agree(spark):
    df = events_df(spark, SPEC_ROWS + [(0, "h", 12, 7, 9)])
    df.createOrReplaceTempView("forms_events")
    via_sql = spark.sql(
        "SELECT k, sliding_window(ts, '10 microseconds'), count(*) AS n, sum(v) AS total "
        "FROM forms_events GROUP BY k, sliding_window(ts, '10 microseconds')"
    )
    via_df = df.groupBy("k", swa.sliding_window("ts", "10 microseconds")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total"))
    via_helper = swa.sliding_window_agg(df, by="k", time=F.col("ts"), size="10 microseconds",
                                        aggs=[F.count("*").alias("n"), F.sum("v").alias("total")])
    via_expr = df.groupBy("k", F.expr("sliding_window(ts, '10 microseconds')")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total"))
    results = [sorted(d.select("k", *window_micros(), "n", "total").collect())
               for d in (via_sql, via_df, via_helper, via_expr)]
    assert len(results[0]) == 9
    assert all(r == results[0] for r in results)
    assert via_sql.columns == via_df.columns == ["k", "sliding_window", "n", "total"]


@pytest.mark.parametrize("ntz", [False, True])
def test_timestamp_types(spark, ntz):
    df = events_df(spark, SPEC_ROWS, ntz=ntz)
    out = df.groupBy(swa.sliding_window("ts", "10 microseconds")).count()
    field = out.schema["sliding_window"].dataType
    assert isinstance(field, StructType)
    expected = TimestampNTZType() if ntz else TimestampType()
    assert [f.name for f in field.fields] == ["start", "end"]
    assert all(f.dataType == expected for f in field.fields)
    got = sorted((r.s, r.e, r["count"]) for r in out.select(*window_micros(), "count").collect())
    assert got == [(s, e, len(vs)) for (s, e), vs in SPEC_TABLE]


def test_every_kind_of_aggregate(spark):
    """Declarative, imperative (HLL++), typed (collect_list, percentile, Scala Aggregator UDAF),
    FILTER clauses and several aggregates at once, against the reference."""
    events = [(0, k, t, v, i) for i, (k, t, v) in enumerate(
        [("x", 1, 5), ("x", 2, 9), ("x", 2, 1), ("x", 6, 7), ("x", 13, 2), ("x", 14, 8),
         ("y", -4, 3), ("y", 0, 6), ("y", 30, 4)])]
    events_df(spark, events).createOrReplaceTempView("agg_events")
    rows = spark.sql(
        """
        SELECT k, sliding_window(ts, '5 microseconds') AS sliding_window,
               count(*) AS n, sum(v) AS total, avg(v) AS mean, min(v) AS lo, max(v) AS hi,
               count(*) FILTER (WHERE v > 5) AS big, sum(v) FILTER (WHERE v <= 5) AS small_sum,
               collect_list(v) AS vs, collect_set(v) AS vset, approx_count_distinct(v) AS nd,
               percentile_approx(v, 0.5) AS med, stddev_samp(v) AS sd, max_by(id, v * 100 + id) AS argmax,
               typed_sum(v) AS tsum, bool_or(v > 8) AS any_big, sum(v) + count(*) AS expr
        FROM agg_events GROUP BY k, sliding_window(ts, '5 microseconds')
        """
    ).select("k", *window_micros(), "*").collect()
    expected = reference_windows("sliding_window", events, 5)
    got = rows_by_window(rows, ["k"])
    assert set(got) == set(expected)
    for w, members in expected.items():
        vs = [m[3] for m in members]
        r = got[w]
        assert r.n == len(vs) and r.total == sum(vs) and r.tsum == sum(vs)
        assert r.mean == pytest.approx(sum(vs) / len(vs))
        assert (r.lo, r.hi) == (min(vs), max(vs))
        assert r.big == sum(1 for v in vs if v > 5)
        assert r.small_sum == (sum(v for v in vs if v <= 5) if any(v <= 5 for v in vs) else None)
        assert sorted(r.vs) == sorted(vs) and sorted(r.vset) == sorted(set(vs))
        assert r.nd == len(set(vs))
        assert r.med in vs
        if len(vs) > 1:
            mean = sum(vs) / len(vs)
            assert r.sd == pytest.approx((sum((v - mean) ** 2 for v in vs) / (len(vs) - 1)) ** 0.5)
        assert r.argmax == max(members, key=lambda m: m[3] * 100 + m[4])[4]
        assert r.any_big == any(v > 8 for v in vs)
        assert r.expr == sum(vs) + len(vs)


def test_order_sensitive_aggregates_see_rows_oldest_first(spark):
    """collect_list, first, last and an order-sensitive Scala Aggregator merge in time order."""
    events = [(0, "k", t, t * 10, t) for t in [3, 1, 7, 4, 9, 12, 2, 15]]
    rows = (
        events_df(spark, events)
        .groupBy(swa.sliding_window("ts", "6 microseconds"))
        .agg(F.collect_list("t").alias("ts_list"), F.first("t").alias("first_t"),
             F.last("t").alias("last_t"), F.expr("typed_concat(cast(t AS string))").alias("cat"))
        .select(*window_micros(), "ts_list", "first_t", "last_t", "cat")
        .collect()
    )
    expected = sliding_windows(events, 6, key=lambda r: 0, time=lambda r: r[2])
    assert len(rows) == len(expected)
    for r in rows:
        times = sorted(m[2] for m in expected[(0, r.s, r.e)])
        assert list(r.ts_list) == times
        assert (r.first_t, r.last_t) == (times[0], times[-1])
        assert r.cat == ",".join(str(t) for t in times)


def test_grouping_shapes(spark):
    """No other key, expression keys, an expression as time, HAVING, and results computed from
    the window and the aggregates."""
    events = [(0, k, t, v, i) for i, (k, t, v) in enumerate(
        [("a1", 1, 1), ("a2", 3, 2), ("b1", 4, 3), ("a1", 20, 4), ("b2", 21, 5)])]
    events_df(spark, events).createOrReplaceTempView("shape_events")
    no_key = spark.sql(
        "SELECT unix_micros(w.start) s, unix_micros(w.end) e, count(*) n FROM ("
        "SELECT sliding_window(ts, '5 microseconds') w, count(*) FROM shape_events "
        "GROUP BY sliding_window(ts, '5 microseconds')) JOIN shape_events ON true "
        "WHERE unix_micros(ts) BETWEEN unix_micros(w.start) AND unix_micros(w.end) GROUP BY w"
    ).collect()
    expected = sliding_windows(events, 5, key=lambda r: 0, time=lambda r: r[2])
    assert sorted((r.s, r.e, r.n) for r in no_key) == sorted(
        (s, e, len(m)) for (_, s, e), m in expected.items())

    by_prefix = spark.sql(
        """
        SELECT substr(k, 1, 1) AS p, unix_micros(sliding_window(ts + INTERVAL 1 MICROSECOND, '5 microseconds').end) AS e,
               sum(v) * 10 AS total10
        FROM shape_events
        GROUP BY substr(k, 1, 1), sliding_window(ts + INTERVAL 1 MICROSECOND, '5 microseconds')
        HAVING count(*) > 1
        """
    ).collect()
    shifted = [(0, e[1][0], e[2] + 1, e[3], e[4]) for e in events]
    expected = reference_windows("sliding_window", shifted, 5)
    assert sorted((r.p, r.e, r.total10) for r in by_prefix) == sorted(
        (k, e, 10 * sum(m[3] for m in ms)) for (k, s, e), ms in expected.items() if len(ms) > 1)


def test_explain_shows_operator_with_size_and_keys(spark):
    df = events_df(spark, SPEC_ROWS).groupBy("k", swa.sliding_window("ts", "10 seconds")).count()
    plan = df._jdf.queryExecution().executedPlan().toString()
    assert "SlidingWindowAggregate(keys=[k#" in plan
    assert "size=10 seconds" in plan
    assert "functions=[count(1)]" in plan
    optimized = df._jdf.queryExecution().optimizedPlan().toString()
    assert "SlidingWindowAggregate keys=[k#" in optimized


def test_explain_formatted_shows_window_keys_and_functions(spark):
    """EXPLAIN FORMATTED gives the operator a block of its own, as Spark's aggregations have."""
    events_df(spark, SPEC_ROWS).createOrReplaceTempView("explained_events")
    plan = spark.sql("""EXPLAIN FORMATTED
        SELECT k, sliding_window(ts, '10 seconds') AS w, sum(v) AS total FROM explained_events
        GROUP BY k, sliding_window(ts, '10 seconds')""").collect()[0][0]
    block = plan[plan.index(") SlidingWindowAggregate\n"):]
    block = block[:block.index("\n\n")]
    lines = block.split("\n")
    assert lines[1].startswith("Input [")
    assert lines[2].startswith("Window: sliding_window(ts#") and lines[2].endswith(", '10 seconds')")
    assert lines[3].startswith("Keys [1]: [k#")
    assert lines[4].startswith("Functions [1]: [sum(v#")
    assert lines[5].startswith("Results [3]: [k#")


def test_sql_metrics(spark):
    events = SPEC_ROWS + [(0, "h", 12, 7, 9), (0, "h", 12, 8, 10), (0, "h", None, 8, 11)]
    spark.conf.set("spark.sql.adaptive.enabled", "false")  # metrics read from the plan tree
    try:
        df = events_df(spark, events).groupBy("k", swa.sliding_window("ts", "10 microseconds")).count()
        assert len(df.collect()) == 9
    finally:
        spark.conf.unset("spark.sql.adaptive.enabled")
    node = find_node(df._jdf.queryExecution().executedPlan(), "SlidingWindowAggregate")
    assert node is not None
    metrics = node.metrics()
    assert metrics.apply("numOutputRows").value() == 9
    assert metrics.apply("numGroups").value() == 2
    assert metrics.apply("numInputRows").value() == 7  # the null-time row is filtered before


def test_window_can_end_past_year_9999(spark):
    """Bounds are exact micro-seconds even past 9999-12-31 (Spark timestamps can hold them)."""
    last = 253402300799999999  # 9999-12-31 23:59:59.999999
    events = [(0, "k", last - 1, 1, 1), (0, "k", last, 2, 2)]
    day = 86_400_000_000
    rows = (events_df(spark, events).groupBy(swa.sliding_window("ts", "1 day")).count()
            .select(*window_micros(), "count").collect())
    assert sorted((r.s, r.e, r["count"]) for r in rows) == [
        (last - 1 - day, last - 1, 1), (last - day, last, 2), (last, last + day, 1)]


def test_size_may_be_any_string_or_interval_form(spark):
    events_df(spark, SPEC_ROWS).createOrReplaceTempView("size_events")
    sizes = ["'10 microseconds'", "INTERVAL 10 MICROSECONDS", "INTERVAL '0.00001' SECOND",
             "concat('10', ' microseconds')", "'10us'"]  # an interval string, or a time-setting one
    if not spark.version.startswith("3."):  # collations came with Spark 4.0
        sizes.append("'10 microseconds' COLLATE UTF8_LCASE")
    counts = [
        spark.sql(f"SELECT count(*) FROM size_events GROUP BY sliding_window(ts, {size})").count()
        for size in sizes
    ]
    assert counts == [8] * len(sizes)


def test_floating_point_keys_group_like_group_by(spark):
    """-0.0 and 0.0 are one group, and so are all NaNs, exactly as in Spark's GROUP BY."""
    df = spark.sql(
        """
        SELECT * FROM VALUES (0.0D, 1L), (-0.0D, 2L), (CAST('NaN' AS DOUBLE), 3L),
                             (-CAST('NaN' AS DOUBLE), 4L), (1.5D, 5L) AS t(x, t)
        """
    ).withColumn("ts", F.timestamp_micros("t")).withColumn("f", F.col("x").cast("float"))
    for key in ("x", "f", F.struct(F.col("x").alias("inner"))):
        got = (df.groupBy(key, swa.sliding_window("ts", "10 microseconds")).agg(F.count("*").alias("n"))
               .groupBy().agg(F.count("*").alias("windows"), F.sum("n").alias("rows")).first())
        plain_groups = df.groupBy(key).count().count()
        assert plain_groups == 3
        # All times are within 10us of each other: each group has windows ending at each of its times,
        # and no group is split in two.
        per_group = df.groupBy(key).agg(F.countDistinct("t").alias("d")).collect()
        assert got.windows == sum(2 * r.d - 1 for r in per_group)
    # The normalized key is still the key column for what comes after the aggregation.
    df.createOrReplaceTempView("float_events")
    ordered = spark.sql("SELECT x, count(*) AS n FROM float_events GROUP BY x, "
                        "sliding_window(ts, '10 microseconds') HAVING x >= 0 AND NOT isnan(x) ORDER BY x DESC, n").collect()
    assert [(r.x, r.n) for r in ordered] == [(1.5, 1), (0.0, 1), (0.0, 1), (0.0, 2)]


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
def test_map_keys_group_like_group_by(spark, function):
    """Maps with the same entries in another order are one group, as in Spark's GROUP BY (which
    sorts map keys), at the top level and inside a struct or an array."""
    df = spark.sql(
        """
        SELECT * FROM VALUES (map('a', 1, 'b', 2), 1L), (map('b', 2, 'a', 1), 3L),
                             (map('a', 1), 4L), (CAST(NULL AS MAP<STRING, INT>), 5L) AS t(m, t)
        """
    ).withColumn("ts", F.timestamp_micros("t"))
    events = [(0, "ab", 1, 0, 0), (0, "ab", 3, 0, 1), (0, "a", 4, 0, 2), (0, None, 5, 0, 3)]
    expected = sorted((k is None, k or "", s, e, len(m))
                      for (k, s, e), m in reference_windows(function, events, 10).items())

    def name(json: str):  # the test's name of the map a key holds, at any depth
        return "ab" if '"b":2' in json else "a" if '"a":1' in json else None

    if spark.version.startswith("3."):  # Spark 3.5 groups by no map: neither GROUP BY nor ours
        for grouped in (df.groupBy("m"), df.groupBy("m", getattr(swa, function)("ts", "10 microseconds"))):
            with pytest.raises(AnalysisException, match="GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE"):
                grouped.count().collect()
        return

    for key in (F.col("m"), F.struct(F.col("m").alias("inner")), F.array(F.col("m"))):
        rows = (df.groupBy(key.alias("key"), getattr(swa, function)("ts", "10 microseconds"))
                .agg(F.count("*").alias("n"))
                .select(F.to_json(F.struct("key")).alias("json"), *window_micros(function), "n")
                .collect())
        assert df.groupBy(key.alias("key")).count().count() == 3  # plain GROUP BY: three groups
        got = sorted((name(r.json) is None, name(r.json) or "", r.s, r.e, r.n) for r in rows)
        assert got == expected, key


def test_aggregates_the_optimizer_rewrites_and_pivots_of_one_aggregation(spark):
    """Aggregates that optimizer rules replace (count(NULL) and FILTER (WHERE false) become
    constants), and a pivot that Spark computes in one aggregation (collect_list: each aggregate
    filtered by the pivot value), against the reference."""
    events = [(0, k, t, v, i) for i, (k, t, v) in enumerate(
        [("a", 0, 1), ("b", 5, 10), ("a", 12, 100), ("b", 13, 1000)])]
    df = events_df(spark, events)
    rows = (df.groupBy(swa.sliding_window("ts", "10 microseconds"))
            .agg(F.expr("count(NULL)").alias("none"), F.expr("count(*) FILTER (WHERE false)").alias("zero"),
                 F.count("*").alias("n"))
            .select(*window_micros(), "none", "zero", "n").collect())
    expected = sliding_windows(events, 10, key=lambda r: 0, time=lambda r: r[2])
    assert sorted((r.s, r.e, r.none, r.zero, r.n) for r in rows) == sorted(
        (s, e, 0, 0, len(m)) for (_, s, e), m in expected.items())
    pivoted = (df.groupBy(swa.sliding_window("ts", "10 microseconds")).pivot("k", ["a", "b"])
               .agg(F.collect_list("v")).select(*window_micros(), "a", "b").collect())
    assert sorted((r.s, r.e, sorted(r.a), sorted(r.b)) for r in pivoted) == sorted(
        (s, e, sorted(x[3] for x in m if x[1] == "a"), sorted(x[3] for x in m if x[1] == "b"))
        for (_, s, e), m in expected.items())


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
def test_cached_results_are_reused(spark, function):
    """CACHE TABLE and DataFrame.cache(): later queries of the same plan read the cache, as the
    cache manager matches plans by their canonical form (names and ids of aggregates aside)."""
    if spark.version.startswith("3."):
        pytest.skip("Spark 3.5's cache manager does not match a windowed aggregation's plan: later "
                    "queries recompute it (docs/compatibility.md)")
    events_df(spark, SPEC_ROWS).createOrReplaceTempView("cache_events")
    query = (f"SELECT k, {function}(ts, '10 microseconds') AS w, count(*) AS n, sum(v) AS total "
             f"FROM cache_events GROUP BY k, {function}(ts, '10 microseconds')")

    def reads_cache(df):
        return "InMemoryRelation" in df._jdf.queryExecution().executedPlan().toString()

    try:
        spark.sql(f"CACHE TABLE cached_windows AS {query}")
        assert spark.catalog.isCached("cached_windows")
        assert reads_cache(spark.sql("SELECT * FROM cached_windows"))
        spark.catalog.clearCache()
        df = spark.sql(query).cache()
        expected = sorted(df.collect())
        again = spark.sql(query)
        assert reads_cache(again) and sorted(again.collect()) == expected
    finally:
        spark.catalog.clearCache()
        spark.sql("DROP VIEW IF EXISTS cached_windows")


def test_subqueries(spark):
    """A windowed aggregation inside IN, EXISTS and scalar subqueries is planned like any other."""
    events = [(0, "a", 0, 1, 0), (0, "a", 5, 2, 1), (0, "b", 3, 3, 2)]
    events_df(spark, events).createOrReplaceTempView("sub_events")
    maxima = {max(m[3] for m in ms) for ms in reference_windows("sliding_window", events, 10).values()}
    n_in = spark.sql("SELECT count(*) AS n FROM sub_events WHERE v IN (SELECT max(v) FROM sub_events "
                     "GROUP BY k, sliding_window(ts, '10 microseconds'))").first().n
    assert n_in == sum(1 for e in events if e[3] in maxima)
    exists = spark.sql("SELECT count(*) AS n FROM sub_events WHERE EXISTS (SELECT 1 FROM sub_events "
                       "GROUP BY sliding_window(ts, '10 microseconds') HAVING count(*) = 3)").first().n
    assert exists == 3
    scalar = spark.sql("SELECT (SELECT count(*) FROM (SELECT count(*) FROM sub_events "
                       "GROUP BY k, batch_window(ts, '10 microseconds'))) AS n").first().n
    assert scalar == len(reference_windows("batch_window", events, 10))


@pytest.mark.parametrize("group_by", ["k, 2", "ALL"])
def test_group_by_ordinal_and_all(spark, group_by):
    """GROUP BY 2 and GROUP BY ALL resolve to the window function of the select list."""
    events_df(spark, [(0, "a", 10, 1, 1), (0, "a", 14, 2, 2)]).createOrReplaceTempView("ordinal_events")
    rows = spark.sql(f"""
        SELECT k, sliding_window(ts, '10 microseconds') AS w, count(*) AS n
        FROM ordinal_events GROUP BY {group_by}""").select(
        "k", F.unix_micros("w.start").alias("s"), "n").orderBy("s").collect()
    assert [tuple(r) for r in rows] == [("a", 0, 1), ("a", 4, 2), ("a", 11, 1)]


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
@pytest.mark.parametrize("precision,scale", [(3, 2), (10, 2), (9, 0), (20, 4), (38, 10)])
def test_decimal_sum_and_avg(spark, function, precision, scale):
    """sum and avg of decimals: for small precisions the optimizer computes them on unscaled
    longs (DecimalAggregates), which rewrites the aggregates of the windowed aggregation."""
    from decimal import ROUND_HALF_UP, Decimal

    events = [(0, k, t, v, i) for i, (k, t, v) in enumerate(
        [("x", 1, 5), ("x", 2, 9), ("x", 2, 1), ("x", 6, 7), ("x", 13, 2), ("y", -4, 3),
         ("y", 0, 6)])]
    unit = Decimal(1).scaleb(-scale)
    rows = (events_df(spark, events)
            .withColumn("d", (F.col("v") * F.lit(unit)).cast(f"decimal({precision},{scale})"))
            .groupBy("k", getattr(swa, function)("ts", "5 microseconds"))
            .agg(F.sum("d").alias("total"), F.avg("d").alias("mean"), F.count("*").alias("n"))
            .select("k", *window_micros(function), "total", "mean", "n").collect())
    expected = reference_windows(function, events, 5)
    got = rows_by_window(rows, ["k"])
    assert set(got) == set(expected)
    for w, members in expected.items():
        total = sum(Decimal(m[3]) * unit for m in members)
        mean = (total / len(members)).quantize(Decimal(1).scaleb(-(scale + 4)), rounding=ROUND_HALF_UP)
        assert got[w].total == total, w
        assert got[w].mean == mean, w


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
def test_a_filter_above_the_aggregation_leaves_unused_columns_unread(spark, function):
    """HAVING, an outer WHERE and DataFrame.where put a Filter between the result Project and the
    aggregation; the aggregation still reads only the columns it uses (ColumnPruning stops at
    the Filter), like an Aggregate: here an unused column fails if it is computed at all."""
    events = [(0, "a", 0, 1, 0), (0, "a", 5, 2, 1), (0, "b", 3, 3, 2), (0, "b", 30, 4, 3)]
    (events_df(spark, events).withColumn("ratio", F.expr("100 div (id - id)"))
     .createOrReplaceTempView("pruned_events"))
    expected = sorted((k, s, e, len(rows))
                      for (k, s, e), rows in reference_windows(function, events, 10).items())
    aggregation = (f"SELECT k, {function}(ts, '10 microseconds') AS w, count(*) AS n "
                   f"FROM pruned_events GROUP BY k, {function}(ts, '10 microseconds')")
    queries = {
        "having": spark.sql(aggregation + " HAVING count(*) > 0"),
        "outer where": spark.sql(f"SELECT * FROM ({aggregation}) WHERE k IS NOT NULL"),
        "DataFrame.where": spark.table("pruned_events")
        .groupBy("k", getattr(swa, function)("ts", "10 microseconds").alias("w"))
        .agg(F.count("*").alias("n")).where("n > 0"),
    }
    for name, df in queries.items():
        rows = df.select("k", *window_micros("w"), "n").collect()
        assert sorted(tuple(r) for r in rows) == expected, name
