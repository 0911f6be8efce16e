"""The streaming trailing windows harness: the query, random streams and the check of what a
stream emitted against the frames of tests/support/reference.py (docs/trailing-windows.md, "On a
stream"). Used by tests/test_trailing_windows_streaming.py and its checkpoint fixtures
(tests/support/trailing_fixtures.py), whose query must not change."""
from __future__ import annotations

from typing import Dict, Sequence

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

import sliding_window_agg as swa
from reference import trailing_frames
from streaming_harness import (CASE, DELAY_TEXT, FLUSH_KEY, ID, KEY, MS, SEC, TIME, VALUE, Run, Stream, batch_plan,
                               generate_stream)

OPERATOR = "trailingWindow"
# Frames of the query: (column suffix, size, lag) in microseconds.
FRAMES = [("3s", 3 * SEC, 0), ("10s", 10 * SEC, 0), ("8s_2s", 8 * SEC, 2 * SEC)]


def trailing_query(stream: DataFrame) -> DataFrame:
    """count, sum and the ids over 3 s and 10 s up to the row, and over the 8 s to 2 s before it,
    by (case, k), from the Python helper and from a SQL frame with a lag."""
    s = stream.withWatermark("ts", DELAY_TEXT)
    w3 = swa.trailing_window(["case", "k"], "ts", "3 seconds")
    w10 = swa.trailing_window(["case", "k"], "ts", "10 seconds")
    return s.select(
        "case", "k", "t", "v", "id",
        F.count("*").over(w3).alias("n_3s"), F.sum("v").over(w3).alias("total_3s"),
        F.collect_list("id").over(w3).alias("ids_3s"),
        F.count("*").over(w10).alias("n_10s"), F.sum("v").over(w10).alias("total_10s"),
        F.collect_list("id").over(w10).alias("ids_10s"),
        F.expr("count(*) OVER (PARTITION BY case, k ORDER BY ts RANGE BETWEEN INTERVAL 8 SECONDS "
               "PRECEDING AND INTERVAL 2 SECONDS PRECEDING)").alias("n_8s_2s"),
        F.expr("collect_list(id) OVER (PARTITION BY case, k ORDER BY ts RANGE BETWEEN INTERVAL 8 "
               "SECONDS PRECEDING AND INTERVAL 2 SECONDS PRECEDING)").alias("ids_8s_2s"))


def generate(seed: int, cases: int = 4) -> Stream:
    """The streaming harness's random streams (generate_stream), with a null key among the keys,
    8 to 30 rows per case and late rows up to 20 seconds back, for frames up to 10 seconds."""
    return generate_stream(seed, 10 * SEC, cases, name=f"trailing-streaming-{seed}", keys=("a", "b", None),
                           rows=(8, 30), late_span=20 * SEC)


def expected_rows(stream: Stream, runs: Sequence[Run]) -> Dict[int, tuple]:
    """{row id: (batch that emits it, {frame: (count, sum, sorted ids)})} for every kept row
    (not late, not the flush) whose time the last watermark reaches."""
    plan = batch_plan(stream, runs)
    late = stream.late(plan)
    kept = [e for f in stream.files for e in f if e[ID] not in late and e[KEY] != FLUSH_KEY]
    frames = {name: trailing_frames(kept, size, key=lambda e: (e[CASE], e[KEY]), time=lambda e: e[TIME], lag=lag)
              for name, size, lag in FRAMES}
    expected = {}
    for i, e in enumerate(kept):
        due = [b for b, batch in enumerate(plan) if batch.watermark * MS >= e[TIME]]
        if not due:
            continue
        values = {name: (len(fs[i]), sum(m[VALUE] for m in fs[i]) if fs[i] else None,
                         sorted(m[ID] for m in fs[i])) for name, fs in frames.items()}
        expected[e[ID]] = (min(due), values)
    return expected


def emitted_rows(runs: Sequence[Run]) -> Dict[int, tuple]:
    got: Dict[int, tuple] = {}
    for run in runs:
        for b, r in run.rows:
            assert r.id not in got, f"row {r.id} emitted twice: in batches {got[r.id][0]} and {b}"
            values = {name: (r[f"n_{name}"], r[f"total_{name}"] if f"total_{name}" in r.asDict() else None,
                             sorted(r[f"ids_{name}"])) for name, _, _ in FRAMES}
            got[r.id] = (b, values)
    return got


def check(stream: Stream, runs: Sequence[Run]) -> None:
    expected = expected_rows(stream, runs)
    got = emitted_rows(runs)
    for rid in expected:
        want_batch, want = expected[rid]
        # The lagged frame has no sum column.
        want = {n: (c, s if n != "8s_2s" else None, ids) for n, (c, s, ids) in want.items()}
        assert rid in got, f"row {rid} never emitted (expected in batch {want_batch})"
        assert got[rid] == (want_batch, want), f"row {rid}: got {got[rid]}, expected {(want_batch, want)}"
    assert set(got) == set(expected), f"unexpected rows {sorted(set(got) - set(expected))[:5]}"


def frame_query(table: str, sizes) -> str:
    """Ten aggregates per frame; a frame is named by its size ("10 seconds": up to the current
    row) or by its size and lag ("60 seconds/10 seconds": up to 10 seconds before the row; Spark wants both bounds of one interval type)."""
    cols = []
    for name in sizes:
        size, _, lag = name.partition("/")
        upper = f"INTERVAL '{lag}' PRECEDING" if lag else "CURRENT ROW"
        w = f"PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '{size}' PRECEDING AND {upper}"
        tag = tag_of(name)
        cols += [f"count(*) OVER ({w}) AS n_{tag}", f"count(v) OVER ({w}) AS c_{tag}",
                 f"sum(v) OVER ({w}) AS s_{tag}", f"min(v) OVER ({w}) AS lo_{tag}",
                 f"max(v) OVER ({w}) AS hi_{tag}", f"avg(v) OVER ({w}) AS a_{tag}",
                 f"sort_array(collect_list(v) OVER ({w})) AS l_{tag}",
                 f"sum(CAST(v AS DECIMAL(10, 2))) OVER ({w}) AS d_{tag}",
                 f"typed_sum(coalesce(v, 0)) OVER ({w}) AS t_{tag}", f"stddev_samp(v) OVER ({w}) AS sd_{tag}"]
    return f"SELECT id, k, ts, v, {', '.join(cols)} FROM {table}"


def tag_of(name: str) -> str:
    """"10 seconds" -> "10", "1 minute/10 seconds" -> "1_10": a suffix of column names."""
    return "_".join(part.split()[0] for part in name.split("/"))
