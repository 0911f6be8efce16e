"""Batch windows (docs/contract.md, "Batch windows", and "A query restarted from its checkpoint
... produces the same output as one that ran without stopping") stopped and restarted from the
checkpoint at 2 or 3 random micro-batch boundaries, checked against the brute-force simulation of
batch_window_harness.py: the runs together emit what the simulation says of the micro-batches
Spark ran (CHECKS), which is what one uninterrupted run emits (the simulation of the plan without
restarts), none twice in append mode, and no row is dropped.

The streams are made for batch windows: besides rows out of order and behind the watermark,
each case has a group that goes idle (rows in the first micro-batches, then none for several
while the other groups move the watermark past its window, which closes without it, then rows
again, whose stream time starts from the watermark), and one micro-batch jumps 10 window sizes ahead, so that the
rows after it are far behind the new watermark (and, in some streams, time later catches up with
it). Between runs, the state settings that must not change the output change at random (the
state format of a new query and the arrangement of state format 2's records: the query keeps
the format it started with); both output modes, both state store providers.
"""
from __future__ import annotations

import json
import os
import random
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

import pytest

from batch_window_harness import (CHECKS, OPERATOR, SIZES, aggregates, batch_window_query, emitted, expected,
                                  simulate)
from streaming_harness import (CASE, CHUNK_ROWS_CONF, DELAY, FLUSH_KEY, HDFS, HOT_ROWS_CONF, ID, INLINE_ROWS_CONF,
                               KEY, MS, RECORD_CACHE_CONF, RESWEEP_ROWS_CONF, ROCKSDB, STATE_FORMAT_CONF, TIME,
                               VERIFY_ROW_COUNT_CONF, BASE, Run, Stream, arrival_time, flush_event, operator_metrics,
                               run_query, session_conf, state_store, write_files)

# Long runs: the operator harness checks restarts with changed settings in the fast tier.
pytestmark = pytest.mark.slow

STEP = 500 * MS  # the time grid: rows fall exactly on window bounds and on the watermark
KEYS = ("a", "b")
IDLE_KEY = "idle"
JUMP = 10  # window sizes
# The operator's record in the checkpoint (state/WindowOperatorRecord.scala).
OPERATOR_RECORD = os.path.join("state", "1000", "_sliding_window_agg", "operator.json")

# Settings a restart may change without changing the output (legal values, small enough that
# groups move between their record, rows of their own and chunks: test_group_records.py).
STATE_SETTINGS = {
    VERIFY_ROW_COUNT_CONF: ["true", "false"],
    INLINE_ROWS_CONF: ["0", "1", "2", "512"],
    RESWEEP_ROWS_CONF: ["0", "1", "16"],
    CHUNK_ROWS_CONF: ["1", "2", "16"],
    HOT_ROWS_CONF: ["0", "1", "2"],
    RECORD_CACHE_CONF: ["0", "1k", "64m"],
}


@dataclass
class Shape:
    """Where the generator put its idle spells and its jump (file indices)."""

    jump: int  # the file with rows JUMP sizes ahead
    idle: Dict[int, Tuple[int, int]]  # case -> (last file before its idle key's spell, file it returns in)


def idle_and_jump_stream(seed, size: int, cases: int = 3) -> Tuple[Stream, Shape]:
    """Rows of keys a and b (some micro-batches without one of them) and of IDLE_KEY per case,
    times on the STEP grid with some a millisecond off: in order, duplicate, out of order within
    the delay and beyond it; a clock that moves 1 to 4 seconds per micro-batch; one micro-batch
    with rows JUMP sizes ahead, after which the clock stays behind (or, in some streams, catches
    up two micro-batches later). 10 to 13 files, then the flush file."""
    rng = random.Random(f"batch-restarts-{seed}-{size}")
    n = rng.randint(10, 13)
    jump = rng.randint(n // 2 - 1, n - 3)
    catch_up = rng.choice([None, jump + 2])
    idle = {}
    for case in range(cases):
        last = rng.randint(0, 2)
        idle[case] = (last, rng.randint(last + 5, n - 1))
    clock, jumped = BASE + rng.randint(0, 4) * STEP, None
    files: List[List[tuple]] = []
    for i in range(n):
        clock += rng.randint(2, 8) * STEP
        if i == catch_up:
            clock = jumped + rng.randint(-4, 2) * STEP
        rows = []
        for case in range(cases):
            last, back = idle[case]
            keys = [k for k in KEYS if rng.random() < 0.75]
            if i <= last or i == back or (i > back and rng.random() < 0.6):
                keys.append(IDLE_KEY)
            for key in keys:
                times: List[int] = []
                for _ in range(rng.randint(1, 3)):
                    t = arrival_time(rng, clock, times, STEP, 2 * size, odds=(0.15, 0.5, 0.75))
                    if rng.random() < 0.1:
                        t += rng.choice([-MS, MS])
                    times.append(t)
                    rows.append((case, key, t, rng.randint(-20, 20)))
        if i == jump:
            jumped = clock + JUMP * size + rng.randint(0, 4) * STEP
            for case in rng.sample(range(cases), rng.randint(1, cases)):
                rows.append((case, rng.choice(KEYS), jumped, rng.randint(-20, 20)))
        if not rows:
            rows.append((0, KEYS[0], clock, 0))
        rng.shuffle(rows)
        files.append(rows)
    ids = iter(range(10 ** 6))
    files = [[(c, k, t, v, next(ids)) for c, k, t, v in f] for f in files]
    events = [e for f in files for e in f]
    return Stream(files + [[flush_event(events, size)]], size), Shape(jump, idle)


def check_shape(stream: Stream, shape: Shape, size: int) -> None:
    """The harness made what this module is about, in one uninterrupted run: an idle group's window
    closed by the watermark in a micro-batch without rows of that group, the group back later;
    a jump of JUMP sizes; rows after it far behind the watermark, moved into its window."""
    plan = stream.plan()
    sim = simulate(stream, plan, size)
    closed_idle = []
    for (case, key, start, end), (b, _) in sim.closed.items():
        groups_in = {(e[CASE], e[KEY]) for f in stream.files[plan[b].files_before:plan[b].files_through] for e in f}
        last, back = shape.idle[case]
        if key == IDLE_KEY and (case, key) not in groups_in and plan[b].files_through <= back:
            closed_idle.append((case, start))
    assert closed_idle, "harness: no idle group's window was closed by the watermark while the group was idle"
    before = max(e[TIME] for f in stream.files[:shape.jump] for e in f)
    assert max(e[TIME] for e in stream.files[shape.jump]) >= before + JUMP * size
    watermark = stream.marks[shape.jump + 1] * MS
    behind = [e for e in stream.files[shape.jump + 1] if e[TIME] < watermark - 2 * size]
    assert behind, "harness: no row far behind the watermark after the jump"
    moved = {e[ID] for (_, _, start, _), (_, rows) in sim.closed.items() for e in rows if e[TIME] < start - size}
    assert {e[ID] for e in behind} <= moved


def random_restarts(rng: random.Random, stream: Stream, shape: Shape) -> List[int]:
    """2 or 3 files at which the query stops and restarts (the next run reads from there); in
    half the streams one is right after the jump, so that the run ending there closes windows
    with the jumped watermark in a no-data micro-batch."""
    count = rng.randint(2, 3)
    restarts = {shape.jump + 1} if rng.random() < 0.5 else set()
    while len(restarts) < count:
        restarts.add(rng.randrange(1, len(stream.files)))
    return sorted(restarts)


def random_settings(rng: random.Random, runs: int) -> List[Dict[str, str]]:
    """Per run, a random part of STATE_SETTINGS with random values; the first run's state format
    (1 or 2) is the query's, the later runs ask for the other one."""
    first_format = rng.choice(["1", "2"])
    settings = []
    for i in range(runs):
        chosen = {key: rng.choice(values) for key, values in STATE_SETTINGS.items() if rng.random() < 0.7}
        chosen[STATE_FORMAT_CONF] = first_format if i == 0 else {"1": "2", "2": "1"}[first_format]
        settings.append(chosen)
    return settings


def run_with_restarts(spark, tmp_path, stream: Stream, size_text: str, mode: str, store: str,
                      restarts: Sequence[int], settings: Sequence[Dict[str, str]]) -> List[Run]:
    """One run per slice of the files between restarts, each with its settings; a file is written
    only when its run starts, so that each run stops where the next one starts."""
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "checkpoint")
    bounds = [0, *restarts, len(stream.files)]
    runs = []
    with state_store(spark, store):
        for a, b, conf in zip(bounds, bounds[1:], settings):
            write_files(source, stream.files[a:b], first=a)
            with ExitStack() as stack:
                for key, value in conf.items():
                    stack.enter_context(session_conf(spark, key, value))
                runs.append(run_query(spark, source, checkpoint, batch_window_query(size_text), mode))
    return runs


def uninterrupted_output(stream: Stream, size: int, mode: str) -> List[tuple]:
    """(window, aggregates) of every row one uninterrupted run emits, by the simulation of the
    micro-batches it runs (no restart: a no-data batch only at the end)."""
    sim = simulate(stream, stream.plan(), size)
    if mode == "append":
        rows = [(w, as_tuple(expected(r))) for w, (_, r) in sim.closed.items()]
    else:
        rows = [(w, as_tuple(expected(r))) for changed in sim.changed.values() for w, r in changed.items()]
    return sorted(row for row in rows if row[0][1] != FLUSH_KEY)


def as_tuple(aggregated: tuple) -> tuple:
    """Aggregates (count, sum, max, ids) hashable."""
    n, total, hi, ids = aggregated
    return n, total, hi, tuple(ids)


STORES = {"rocksdb": ROCKSDB, "default": HDFS}
CASES = [  # (seed, mode, state store, window size)
    (1, "append", "rocksdb", "2 seconds"),
    (2, "update", "default", "2 seconds"),
]


@pytest.mark.parametrize("seed,mode,store,size_text", CASES)
def test_restarts_at_random_micro_batches_emit_what_one_run_emits(spark, tmp_path, seed, mode, store, size_text):
    """A stream with idle groups and a jump (idle_and_jump_stream), restarted at 2 or 3 random
    micro-batches with random state settings per run."""
    size = SIZES[size_text]
    stream, shape = idle_and_jump_stream(seed, size)
    check_shape(stream, shape, size)
    rng = random.Random(f"batch-restarts-runs-{seed}")
    restarts = random_restarts(rng, stream, shape)
    settings = random_settings(rng, len(restarts) + 1)
    described = f"restarts before files {restarts} of {len(stream.files)}, settings {settings}"

    runs = run_with_restarts(spark, tmp_path, stream, size_text, mode, STORES[store], restarts, settings)

    assert len(runs) == len(restarts) + 1 and all(r.progress for r in runs), described
    for before, after in zip(runs, runs[1:]):  # each run resumed after the last committed batch
        assert min(p["batchId"] for p in after.progress) == max(p["batchId"] for p in before.progress) + 1
    try:
        CHECKS[mode](stream, runs, size)  # the micro-batches Spark ran, no-data ones at restarts included
    except AssertionError as e:
        raise AssertionError(f"{described}: {e}") from e
    got = sorted((w, as_tuple(aggregates(r))) for _, w, r in emitted(runs))
    want = uninterrupted_output(stream, size, mode)
    assert got == want, (f"{described}: missing {list((Counter(want) - Counter(got)).elements())[:5]}, unexpected "
                         f"{list((Counter(got) - Counter(want)).elements())[:5]}, {len(got)} rows emitted, "
                         f"{len(want)} expected")
    if mode == "append":
        windows = [w for w, _ in got]
        assert len(set(windows)) == len(windows), f"{described}: a window emitted twice"
    dropped = [op["numRowsDroppedByWatermark"] for op in operator_metrics(runs, OPERATOR)]
    assert dropped and not any(dropped), f"{described}: rows dropped by micro-batch: {dropped}"
    with open(os.path.join(str(tmp_path / "checkpoint"), OPERATOR_RECORD)) as f:
        assert json.load(f)["stateFormatVersion"] == int(settings[0][STATE_FORMAT_CONF]), described
