"""Batch windows in Structured Streaming (SPEC section 3), checked differentially against a
brute-force simulation written from the spec, over random streams with late rows split into
random micro-batches. It reuses the file-source harness of test_sliding_streaming (one file per
micro-batch, availableNow, the micro-batches Spark ran read back from its progress reports).

The simulation, per group: at the start of each micro-batch, windows whose end the batch's
watermark has reached are closed; then the group's rows of the batch are applied in time order,
stream time = max(stream time, row time, watermark), each row going to the window
[floor(st / S) * S, + S); a window that stream time leaves is closed. No row is ever dropped.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import pytest
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

import sliding_window_agg as swa
from test_sliding_streaming import (CASE, FLUSH_KEY, HDFS, ID, KEY, MS, ROCKSDB, SEC, TIME, VALUE,
                                    Batch, Run, Stream, batch_plan, generate_stream,
                                    operator_metrics, run_query, state_store, write_files)
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


@pytest.mark.parametrize("mode,size_text,seed", [
    (mode, size_text, seed) for mode in CHECKS for size_text in SIZES for seed in range(2)])
def test_random_streams_match_the_simulation(spark, tmp_path, mode, size_text, seed):
    stream = generate_stream(100 + seed, SIZES[size_text], cases=6)
    result = run(spark, tmp_path, stream, size_text, mode)
    sim = CHECKS[mode](stream, [result], SIZES[size_text])
    metrics = operator_metrics([result], OPERATOR)
    assert sum(op["numRowsDroppedByWatermark"] for op in metrics) == 0  # never dropped
    assert all("numWindowsEmitted" in op["customMetrics"] for op in metrics)
    # The streams do have rows that sliding windows would drop as late, and they moved here:
    # some window holds a row older than its start.
    late_moved = [w for w, (_, rows) in sim.closed.items() if any(e[TIME] < w[2] for e in rows)]
    assert late_moved


@pytest.mark.parametrize("mode", list(CHECKS))
def test_default_state_store_gives_the_same_output(spark, tmp_path, mode):
    stream = generate_stream(7, 2 * SEC, cases=6)
    result = run(spark, tmp_path, stream, "2 seconds", mode, provider=HDFS)
    CHECKS[mode](stream, [result], 2 * SEC)


@pytest.mark.parametrize("mode", list(CHECKS))
def test_restart_from_checkpoint_emits_what_one_run_emits(spark, tmp_path, mode):
    stream = generate_stream(9, 2 * SEC, cases=5)
    size = 2 * SEC
    half = len(stream.files) // 2
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "checkpoint")
    write_files(source, stream.files[:half])
    with state_store(spark, ROCKSDB):
        first = run_query(spark, source, checkpoint, batch_window_query("2 seconds"), mode)
        write_files(source, stream.files[half:], first=half)
        second = run_query(spark, source, checkpoint, batch_window_query("2 seconds"), mode)
    assert min(p["batchId"] for p in second.progress) > max(p["batchId"] for p in first.progress)
    CHECKS[mode](stream, [first, second], size)
    # The same windows with the same rows as an uninterrupted run.
    uninterrupted = simulate(stream, stream.plan(), size)
    final = {}
    for _, w, r in emitted([first, second]):
        final[w] = aggregates(r)
    assert final == {w: expected(rows) for w, (_, rows) in uninterrupted.closed.items()
                     if w[1] != FLUSH_KEY} | ({} if mode == "append" else {
                         w: expected(rows) for w, rows in uninterrupted.still_open.items()
                         if w[1] != FLUSH_KEY})


@pytest.mark.parametrize("provider,rows_per_window", [(ROCKSDB, 2), (HDFS, 1)])
def test_state_holds_only_each_groups_open_window(spark, tmp_path, provider, rows_per_window):
    """After every micro-batch, the operator's state rows are the groups with an open window
    (RocksDB counts two rows per window: the window and its entry in the time index)."""
    stream = generate_stream(3, 2 * SEC, cases=6)
    result = run(spark, tmp_path, stream, "2 seconds", "append", provider=provider)
    plan = batch_plan(stream, [result])
    progress = sorted(result.progress, key=lambda p: p["batchId"])
    for b, p in enumerate(progress):
        sim = simulate(stream, plan[:b + 1], 2 * SEC)
        op = [o for o in p["stateOperators"] if o["operatorName"] == OPERATOR][0]
        assert op["numRowsTotal"] == rows_per_window * len(sim.still_open), (b, op, sim.still_open)


def test_update_mode_without_watermark(spark, tmp_path):
    """Without a watermark, stream time alone moves windows on; update mode needs none."""
    stream = generate_stream(4, 2 * SEC, cases=4)
    write_files(str(tmp_path / "in"), stream.files)
    with state_store(spark, ROCKSDB):
        result = run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"),
                           batch_window_query("2 seconds", watermark=False), "update")
    # No watermark: every batch runs with watermark 0 (no eventTime.watermark reported).
    no_wm = Stream(stream.files, stream.size, delay=10 ** 18)
    plan = [Batch(p.files_before, p.files_through, 0) for p in no_wm.plan()]
    plan = plan[:len(result.progress)]
    sim = simulate(stream, plan, 2 * SEC)
    got: Dict[int, Dict[Window, tuple]] = defaultdict(dict)
    for b, w, r in emitted([result]):
        got[b][w] = aggregates(r)
    for b in range(len(plan)):
        assert got[b] == {w: expected(rows) for w, rows in sim.changed[b].items()
                          if w[1] != FLUSH_KEY}, b


def test_append_without_watermark_is_rejected_at_start(spark, tmp_path):
    write_files(str(tmp_path / "in"), [[(0, "a", 1_700_000_000 * SEC, 1, 1)]])
    with pytest.raises(Exception) as e:
        run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"),
                  batch_window_query("2 seconds", watermark=False), "append")
    assert "watermark" in str(e.value).lower()
