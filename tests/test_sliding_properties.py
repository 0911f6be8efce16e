"""Randomized property tests: hundreds of generated inputs, every window and aggregate compared
with the brute-force reference (tests/support/reference.py).

Each generated input is one "case" (a key column), so one Spark query checks dozens of inputs at
once; inputs have duplicate times, several groups, null times and keys, negative times, and
spreads from a fraction of the size to many sizes.
"""
from __future__ import annotations

import random

import pytest
from pyspark.sql import functions as F

import sliding_window_agg as swa
from reference import distinct_row_sets, sliding_windows
from windows_util import events_df, rows_by_window, window_micros

SEC = 1_000_000
SIZES = {  # size string -> micro-seconds
    "1 microsecond": 1,
    "2 microseconds": 2,
    "7 microseconds": 7,
    "1 millisecond": 1000,
    "1 second": SEC,
    "10 seconds": 10 * SEC,
    "1 hour": 3600 * SEC,
    "1 day": 86400 * SEC,
    "3 days": 3 * 86400 * SEC,
}
CASES_PER_SIZE = 40


def generate_cases(rng: random.Random, size: int, cases: int):
    events, next_id = [], 0
    for case in range(cases):
        keys = rng.sample(["a", "b", "c", "d", None], rng.randint(1, 4))
        spread = max(1, int(size * rng.choice([0.3, 1, 3, 10])))
        base = rng.randint(-5 * spread, 5 * spread)
        # A few distinct times, reused: duplicate times are frequent.
        times = [base + rng.randint(0, spread) for _ in range(rng.randint(1, 12))]
        for _ in range(rng.randint(1, 30)):
            t = None if rng.random() < 0.05 else rng.choice(times)
            events.append((case, rng.choice(keys), t, rng.randint(-50, 50), next_id))
            next_id += 1
    return events


def expected_aggregates(members):
    vs = [m[3] for m in members]
    return len(vs), sum(vs), min(vs), max(vs), sorted(vs), sorted(m[2] for m in members)


@pytest.mark.every_spark
@pytest.mark.parametrize("size_text", list(SIZES))
def test_random_inputs_match_reference(spark, size_text):
    size = SIZES[size_text]
    rng = random.Random(f"sliding-{size_text}")
    events = generate_cases(rng, size, CASES_PER_SIZE)
    out = (
        events_df(spark, events)
        .groupBy("case", "k", swa.sliding_window("ts", size_text))
        .agg(F.count("*").alias("n"), F.sum("v").alias("total"), F.min("v").alias("lo"),
             F.max("v").alias("hi"), F.collect_list("v").alias("vs"),
             F.collect_list("t").alias("ts_in_order"))
        .select("case", "k", *window_micros(), "n", "total", "lo", "hi", "vs", "ts_in_order")
    )
    got = rows_by_window(out.collect(), ["case", "k"])
    expected = sliding_windows(events, size, key=lambda r: (r[0], r[1]), time=lambda r: r[2])
    expected = {(k[0], k[1], s, e): m for (k, s, e), m in expected.items()}
    assert set(got) == set(expected), f"windows differ for size {size_text}"
    for w, members in expected.items():
        r = got[w]
        n, total, lo, hi, vs, times = expected_aggregates(members)
        assert (r.n, r.total, r.lo, r.hi) == (n, total, lo, hi), w
        assert sorted(r.vs) == vs, w
        assert list(r.ts_in_order) == times, w  # collect_list sees rows oldest first


@pytest.mark.parametrize("seed", range(3))
def test_windows_are_the_distinct_row_sets(spark, seed):
    """The contract's equivalent definition: one window per distinct non-empty set of rows that an
    interval [a, a + S] can hold, checked by exhaustion on small ranges."""
    rng = random.Random(seed)
    size = rng.randint(1, 6)
    events = []
    for case in range(60):
        for i in range(rng.randint(1, 9)):
            events.append((case, "k", rng.randint(-10, 25), 0, len(events)))
    rows = (
        events_df(spark, events)
        .groupBy("case", swa.sliding_window("ts", f"{size} microseconds"))
        .agg(F.collect_list("id").alias("ids"))
        .collect()
    )
    by_case = {}
    for r in rows:
        by_case.setdefault(r.case, []).append(frozenset(r.ids))
    for case in range(60):
        members = [e for e in events if e[0] == case]
        index = {e[4]: i for i, e in enumerate(members)}
        sets = [frozenset(index[i] for i in ids) for ids in by_case[case]]
        assert len(sets) == len(set(sets)), "two windows hold the same rows"
        assert set(sets) == distinct_row_sets([m[2] for m in members], size)


def test_many_groups_across_partitions(spark):
    """Many groups hashed over several partitions, large windows (hundreds of rows each)."""
    rng = random.Random(7)
    events = [(0, f"g{rng.randint(0, 49)}", rng.randint(0, 2000), rng.randint(0, 9), i)
              for i in range(6000)]
    out = (events_df(spark, events).repartition(3)
           .groupBy("k", swa.sliding_window("ts", "400 microseconds"))
           .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
           .select("k", *window_micros(), "n", "total").collect())
    got = {(r.k, r.s, r.e): (r.n, r.total) for r in out}
    expected = sliding_windows(events, 400, key=lambda r: r[1], time=lambda r: r[2])
    assert got == {w: (len(m), sum(x[3] for x in m)) for w, m in expected.items()}


@pytest.mark.every_spark  # spill files in each Spark's block manager folders
def test_tiny_chunks_spilled_to_disk_give_the_same_windows(spark):
    """Windows far larger than a chunk, with no memory for sealed chunks: every chunk goes to
    disk and comes back (the bounded-memory path that a huge window takes)."""
    size_text, size = "1 second", SEC
    events = generate_cases(random.Random("spill"), size, 30)
    spark.conf.set("spark.sql.slidingWindow.buffer.chunkBytes", "64b")
    spark.conf.set("spark.sql.slidingWindow.buffer.memory", "0b")
    try:
        out = (events_df(spark, events)
               .groupBy("case", "k", swa.sliding_window("ts", size_text))
               .agg(F.count("*").alias("n"), F.sum("v").alias("total"),
                    F.collect_list("t").alias("ts_in_order"))
               .select("case", "k", *window_micros(), "n", "total", "ts_in_order"))
        got = rows_by_window(out.collect(), ["case", "k"])
    finally:
        spark.conf.unset("spark.sql.slidingWindow.buffer.chunkBytes")
        spark.conf.unset("spark.sql.slidingWindow.buffer.memory")
    expected = sliding_windows(events, size, key=lambda r: (r[0], r[1]), time=lambda r: r[2])
    expected = {(k[0], k[1], s, e): m for (k, s, e), m in expected.items()}
    assert set(got) == set(expected)
    assert max(len(m) for m in expected.values()) > 10  # windows of several chunks
    for w, members in expected.items():
        r = got[w]
        assert (r.n, r.total) == (len(members), sum(m[3] for m in members)), w
        assert list(r.ts_in_order) == sorted(m[2] for m in members), w
