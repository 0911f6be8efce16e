"""The streaming harness of batch windows (docs/contract.md, "Batch windows"): a brute-force
simulation written from the spec, the query the suites run and its checks, over the file-source
harness of streaming_harness.py.

The simulation, per group: at the start of each micro-batch, windows whose end the batch's
watermark has reached are closed; then the group's rows of the batch are applied in time order,
stream time = max(stream time, row time, watermark), each row going to the window
[floor(st / S) * S, + S); a window that stream time leaves is closed. No row is ever dropped.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Sequence, Tuple

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

import sliding_window_agg as swa
from streaming_harness import (CASE, FLUSH_KEY, ID, KEY, MS, ROCKSDB, SEC, TIME, VALUE, Batch, Run,
                               Stream, batch_plan, run_query, state_store, write_files)
from windows_util import window_micros

OPERATOR = "batchWindowAggregate"
SIZES = {"2 seconds": 2 * SEC, "5 seconds": 5 * SEC}
Window = Tuple[int, str, int, int]  # (case, key, start inclusive, end exclusive), micro-seconds


@dataclass
class Simulation:
    """What the spec says a stream produces for the micro-batches of `plan`."""

    closed: Dict[Window, Tuple[int, list]] = field(default_factory=dict)  # window -> (batch, rows)
    changed: Dict[int, Dict[Window, list]] = field(default_factory=lambda: defaultdict(dict))
    still_open: Dict[Window, list] = field(default_factory=dict)


def simulate(stream: Stream, plan: Sequence[Batch], size: int) -> Simulation:
    sim = Simulation()
    stream_time: Dict[tuple, int] = {}
    open_window: Dict[tuple, Tuple[int, list]] = {}  # group -> (start, rows)

    def close(group, batch):
        start, rows = open_window.pop(group)
        sim.closed[(group[0], group[1], start, start + size)] = (batch, rows)

    for b, batch in enumerate(plan):
        watermark = batch.watermark * MS
        for group in [g for g, (s, _) in open_window.items() if s + size <= watermark]:
            close(group, b)
        rows = sorted((e for f in stream.files[batch.files_before:batch.files_through] for e in f),
                      key=lambda e: e[TIME])
        for e in rows:
            group = (e[CASE], e[KEY])
            st = max(stream_time.get(group, e[TIME]), e[TIME], watermark)
            stream_time[group] = st
            start = (st // size) * size
            if group in open_window and open_window[group][0] != start:
                close(group, b)
            open_window.setdefault(group, (start, []))[1].append(e)
            sim.changed[b][(group[0], group[1], start, start + size)] = list(open_window[group][1])
    sim.still_open = {(g[0], g[1], s, s + size): rows for g, (s, rows) in open_window.items()}
    return sim


def batch_window_query(size_text: str, watermark: bool = True) -> Callable[[DataFrame], DataFrame]:
    def build(stream: DataFrame) -> DataFrame:
        if watermark:
            stream = stream.withWatermark("ts", "5 seconds")
        return (stream.groupBy("case", "k", swa.batch_window("ts", size_text))
                .agg(F.count("*").alias("n"), F.sum("v").alias("total"), F.max("v").alias("hi"),
                     F.collect_list("id").alias("ids"))
                .select("case", "k", *window_micros("batch_window"), "n", "total", "hi", "ids"))

    return build


def aggregates(row) -> tuple:
    return row.n, row.total, row.hi, sorted(row.ids)


def expected(rows: Sequence) -> tuple:
    vs = [e[VALUE] for e in rows]
    return len(vs), sum(vs), max(vs), sorted(e[ID] for e in rows)


def emitted(runs: Sequence[Run]) -> List[Tuple[int, Window, object]]:
    return sorted(((b, (r.case, r.k, r.s, r.e), r) for run in runs for b, r in run.rows
                   if r.k != FLUSH_KEY), key=lambda x: x[0])


def check_append(stream: Stream, runs: Sequence[Run], size: int) -> Simulation:
    """Every window once, final, in the micro-batch where the group's stream time or the
    watermark reached its end; every row in exactly one emitted window."""
    sim = simulate(stream, batch_plan(stream, runs), size)
    assert all(w[1] == FLUSH_KEY for w in sim.still_open), "harness: the flush closes all"
    want = {w: v for w, v in sim.closed.items() if w[1] != FLUSH_KEY}
    got: Dict[Window, tuple] = {}
    for b, w, r in emitted(runs):
        assert w not in got, f"window {w} emitted twice: batches {got[w][0]} and {b}"
        got[w] = (b, aggregates(r))
    assert set(got) == set(want), (sorted(set(want) - set(got))[:5], sorted(set(got) - set(want))[:5])
    for w, (b, rows) in want.items():
        assert got[w] == (b, expected(rows)), (w, got[w], (b, expected(rows)))
    ids = sorted(i for _, (_, _, _, ids) in got.values() for i in ids)
    assert ids == sorted(e[ID] for f in stream.files for e in f if e[KEY] != FLUSH_KEY)
    return sim


def check_update(stream: Stream, runs: Sequence[Run], size: int) -> Simulation:
    """Each micro-batch emits exactly the windows that received rows in it, as they are then."""
    plan = batch_plan(stream, runs)
    sim = simulate(stream, plan, size)
    got: Dict[int, Dict[Window, tuple]] = defaultdict(dict)
    for b, w, r in emitted(runs):
        assert w not in got[b], f"window {w} emitted twice in batch {b}"
        got[b][w] = aggregates(r)
    for b in range(len(plan)):
        want = {w: expected(rows) for w, rows in sim.changed[b].items() if w[1] != FLUSH_KEY}
        assert got[b] == want, f"batch {b}: got {got[b]}, expected {want}"
    return sim


CHECKS = {"append": check_append, "update": check_update}


def run(spark, tmp_path, stream: Stream, size_text: str, mode: str, provider: str = ROCKSDB):
    write_files(str(tmp_path / "in"), stream.files)
    with state_store(spark, provider):
        return run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"),
                         batch_window_query(size_text), mode)
