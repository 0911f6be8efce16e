"""Sliding windows in Structured Streaming (SPEC section 2, "In Structured Streaming"), checked
differentially against the brute-force batch reference (tests/reference.py).

The harness feeds a file source one JSON file per micro-batch (maxFilesPerTrigger 1; the file
source takes new files in modification-time order, which the harness makes agree with their
names 000.json, 001.json, ...) and runs the query with trigger(availableNow=True) until it stops
by itself, so Spark also runs the no-data micro-batches that the watermark needs. The last file
holds one row of the key "__flush" far in the future, so that the watermark passes every other
window; "__flush" windows are left out of every comparison.

Spark's watermarks, simulated in Python and checked on every run against what Spark reports for
each micro-batch (whole milliseconds, starting at 0):
- the watermark of a micro-batch, the one that closes (evicts) windows, is the maximum event time
  of the earlier micro-batches minus the delay;
- late rows are dropped with the watermark of the *previous* micro-batch (0 for the first): Spark
  (statefulOperator.allowMultiple, the default) gives every stateful operator
  `getInputWatermarkForLateEvents(batchId) = watermark of batchId - 1`, one micro-batch behind
  the eviction watermark. A row at or below it is dropped and counted.
What is late therefore depends on the sequence of micro-batches, no-data batches included: the
expected output is computed from the sequence Spark ran, read from the progress reports.

Several generated inputs ("cases", part of the grouping key) share one query and one timeline:
the watermark is global to a query, so the cases interleave in arrival order.
"""
from __future__ import annotations

import json
import os
import random
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa
from reference import batch_windows, sliding_windows
from windows_util import Event, window_micros

SEC = 1_000_000  # micro-seconds
MS = 1_000
BASE = 1_700_000_000 * SEC  # far above 0: Spark's initial watermark (0 ms) drops nothing
DELAY_TEXT, DELAY = "5 seconds", 5 * SEC
SIZES = {"3 seconds": 3 * SEC, "10 seconds": 10 * SEC}
FLUSH_KEY = "__flush"
OPERATOR = "slidingWindowAggregate"
PROVIDER_CONF = "spark.sql.streaming.stateStore.providerClass"
ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
HDFS = "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"
INPUT_SCHEMA = "case int, k string, t long, v long, id long"
MTIME_BASE = 1_600_000_000  # seconds; file i gets modification time MTIME_BASE + i
QUERY_TIMEOUT = 180  # seconds for one availableNow run (a few seconds normally)
CASE, KEY, TIME, VALUE, ID = range(5)

Window = Tuple[int, str, int, int]  # (case, key, start, end) in micro-seconds, both inclusive
Windows = Dict[Window, List[Event]]


# --------------------------------------------------------------------------------------------
# Input streams and the simulation of Spark's watermarks


@dataclass
class Batch:
    """One micro-batch: files[files_before:files_through] (one file or none) and its
    (eviction) watermark in ms."""

    files_before: int
    files_through: int
    watermark: int

    @property
    def has_data(self) -> bool:
        return self.files_through > self.files_before


@dataclass
class Stream:
    """The files of one streaming input, one micro-batch each, the last one being the flush."""

    files: List[List[Event]]
    size: int
    delay: int = DELAY
    # Windows of the kept events: {(case, key, start, end): members}. Sliding windows of the
    # reference; the validation of the harness on Spark's own aggregations swaps in others.
    windows_of: Optional[Callable[[List[Event], int], Windows]] = None
    _cache: Dict[tuple, Windows] = field(default_factory=dict, repr=False)

    @property
    def marks(self) -> List[int]:
        """marks[i]: the watermark (ms) once the first i files are read, that is of the
        micro-batch reading file i or of a no-data batch after i files."""
        marks, wm = [0], 0
        for f in self.files:
            wm = max(wm, max(e[TIME] for e in f) // MS - self.delay // MS)
            marks.append(wm)
        return marks

    def plan(self, restarts: Sequence[int] = ()) -> List[Batch]:
        """The micro-batches availableNow runs: one per file, and a no-data batch where a run
        ends (after the last file, and after file i - 1 for each restart at i) if the
        watermark moved in the batch before (the operator's shouldRunAnotherBatch)."""
        marks, batches = self.marks, []
        for i in range(len(self.files)):
            batches.append(Batch(i, i + 1, marks[i]))
            if (i + 1 in restarts or i + 1 == len(self.files)) and marks[i + 1] > marks[i]:
                batches.append(Batch(i + 1, i + 1, marks[i + 1]))
        return batches

    def late(self, plan: Sequence[Batch]) -> frozenset:
        """Ids of the rows Spark drops: time <= the watermark of the previous micro-batch."""
        late, previous = set(), 0
        for batch in plan:
            for f in self.files[batch.files_before:batch.files_through]:
                late.update(e[ID] for e in f if e[TIME] <= previous * MS)
            previous = batch.watermark
        return frozenset(late)

    def reference(self, late: frozenset, upto: Optional[int] = None) -> Windows:
        """The windows of the kept (not late, not flush) rows of the first `upto` files."""
        upto = len(self.files) if upto is None else upto
        if (late, upto) not in self._cache:
            kept = [e for f in self.files[:upto] for e in f
                    if e[ID] not in late and e[KEY] != FLUSH_KEY]
            if self.windows_of is not None:
                found = self.windows_of(kept, self.size)
            else:
                found = {(k[0], k[1], s, e): m for (k, s, e), m in sliding_windows(
                    kept, self.size, key=lambda e: (e[CASE], e[KEY]), time=lambda e: e[TIME],
                ).items()}
            self._cache[(late, upto)] = found
        return self._cache[(late, upto)]


def flush_event(events: Sequence[Event], size: int, delay: int = DELAY) -> Event:
    """One row far enough in the future that the watermark it brings passes every window."""
    far = max(e[TIME] for e in events) + 10 * size + delay + 7 * SEC
    return (0, FLUSH_KEY, far, 0, max(e[ID] for e in events) + 1)


def split_into_files(rng: random.Random, events: List[Event], lo: int = 4, hi: int = 8):
    n = rng.randint(min(lo, len(events)), min(hi, len(events)))
    cuts = sorted(rng.sample(range(1, len(events)), n - 1))
    return [events[a:b] for a, b in zip([0] + cuts, cuts + [len(events)])]


def generate_stream(seed, size: int, cases: int = 4) -> Stream:
    """Rows of a few keys per case in arrival order: mostly in order, duplicate times, rows out
    of order within the delay and beyond it (often late), times on a half-second grid (so rows
    fall exactly on window bounds and on the watermark) with some a millisecond off; split
    into 4 to 8 files (no row is late in the first two micro-batches), then the flush file."""
    rng = random.Random(f"sliding-streaming-{seed}-{size}")
    step = 500 * MS
    arrivals = []
    for case in range(cases):
        keys = rng.sample(["a", "b", "c"], rng.randint(1, 3))
        clock = BASE + rng.randint(0, 4) * step  # arrival progress of this case
        times: List[int] = []
        for _ in range(rng.randint(3, 12)):
            clock += rng.choice([0, 0, 1, 2, 4, 6]) * step
            r = rng.random()
            if times and r < 0.2:
                t = rng.choice(times)  # a duplicate time
            elif r < 0.45:
                t = clock  # in order
            elif r < 0.7:
                t = clock - rng.randint(1, DELAY // step) * step  # out of order, within the delay
            else:  # beyond it: often late
                t = clock - DELAY - rng.randint(0, (2 * size + DELAY) // step) * step
            if rng.random() < 0.1:
                t += rng.choice([-MS, MS])
            times.append(t)
            arrivals.append((clock, rng.random(), case, rng.choice(keys), t, rng.randint(-20, 20)))
    arrivals.sort(key=lambda a: (a[0], a[1]))
    events = [(c, k, t, v, i) for i, (_, _, c, k, t, v) in enumerate(arrivals)]
    files = split_into_files(rng, events)
    return Stream(files + [[flush_event(events, size)]], size)


# --------------------------------------------------------------------------------------------
# Running a query over the files


def write_files(folder: str, files: Sequence[Sequence[Event]], first: int = 0) -> None:
    """One JSON file per micro-batch, named 000.json, 001.json, ... The file source orders new
    files by modification time, not by name: the modification times follow the names."""
    os.makedirs(folder, exist_ok=True)
    for i, rows in enumerate(files, first):
        path = os.path.join(folder, f"{i:03d}.json")
        with open(path, "w") as out:
            for c, k, t, v, row_id in rows:
                out.write(json.dumps({"case": c, "k": k, "t": t, "v": v, "id": row_id}) + "\n")
        os.utime(path, (MTIME_BASE + i, MTIME_BASE + i))


def read_stream(spark: SparkSession, folder: str) -> DataFrame:
    return (spark.readStream.schema(INPUT_SCHEMA).option("maxFilesPerTrigger", 1).json(folder)
            .withColumn("ts", F.timestamp_micros("t")))


@dataclass
class Run:
    rows: List[tuple]  # (batch id, Row) of everything the sink received
    progress: List[dict]


def progress_dict(p) -> dict:
    j = p.json
    return json.loads(j() if callable(j) else j)


def run_query(spark: SparkSession, source: str, checkpoint: str,
              build: Callable[[DataFrame], DataFrame], mode: str) -> Run:
    """Runs build(stream) with availableNow over every file of `source` not read yet by the
    query of `checkpoint`; returns what the foreachBatch sink received and the progress."""
    rows: List[tuple] = []

    def collect(batch: DataFrame, batch_id: int) -> None:
        rows.extend((batch_id, r) for r in batch.collect())

    query = (build(read_stream(spark, source)).writeStream.outputMode(mode)
             .foreachBatch(collect).option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).start())
    try:
        finished = query.awaitTermination(QUERY_TIMEOUT)
    finally:
        query.stop()
    progress = [progress_dict(p) for p in query.recentProgress]
    assert finished, (f"the availableNow query did not stop within {QUERY_TIMEOUT} s (endless "
                      f"no-data batches?); batches run: {[p['batchId'] for p in progress]}")
    return Run(rows, progress)


@contextmanager
def state_store(spark: SparkSession, provider: str) -> Iterator[None]:
    old = spark.conf.get(PROVIDER_CONF, None)
    spark.conf.set(PROVIDER_CONF, provider)
    try:
        yield
    finally:
        if old is None:
            spark.conf.unset(PROVIDER_CONF)
        else:
            spark.conf.set(PROVIDER_CONF, old)


@pytest.fixture
def rocksdb(spark):
    with state_store(spark, ROCKSDB):
        yield


def watermark_ms(text: str) -> int:
    dt = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    return (dt - datetime(1970, 1, 1, tzinfo=timezone.utc)) // timedelta(milliseconds=1)


def batch_plan(stream: Stream, runs: Sequence[Run]) -> List[Batch]:
    """The micro-batches Spark ran (index = batch id), from the progress reports, checking the
    harness's assumptions: one file per micro-batch in name order, no-data batches only when no
    file is left, and the watermark Spark reports equal to the simulated one."""
    progress = sorted((p for r in runs for p in r.progress), key=lambda p: p["batchId"])
    ids = [p["batchId"] for p in progress]
    assert ids == list(range(len(ids))), f"harness: micro-batch ids {ids}"
    marks, read, plan = stream.marks, 0, []
    for p in progress:
        n = p["numInputRows"]
        before = read
        if n:
            assert read < len(stream.files) and n == len(stream.files[read]), (
                f"harness: batch {p['batchId']} read {n} rows, expected file {read} "
                f"({[len(f) for f in stream.files]} rows per file)")
            read += 1
        reported = p.get("eventTime", {}).get("watermark")
        assert reported is not None and watermark_ms(reported) == marks[before], (
            f"harness: batch {p['batchId']} ran with watermark {reported}, simulated "
            f"{marks[before]} ms")
        plan.append(Batch(before, read, marks[before]))
    assert read == len(stream.files), f"harness: only {read} of {len(stream.files)} files read"
    return plan


# --------------------------------------------------------------------------------------------
# Queries and checks


def sliding_query(size_text: str, watermark: bool = True) -> Callable[[DataFrame], DataFrame]:
    def build(stream: DataFrame) -> DataFrame:
        if watermark:
            stream = stream.withWatermark("ts", DELAY_TEXT)
        return (stream.groupBy("case", "k", swa.sliding_window("ts", size_text))
                .agg(F.count("*").alias("n"), F.sum("v").alias("total"), F.max("v").alias("hi"),
                     F.collect_list("v").alias("vs"), F.collect_list("id").alias("ids"))
                .select("case", "k", *window_micros(), "n", "total", "hi", "vs", "ids"))

    return build


def aggregates(row) -> tuple:
    return row.n, row.total, row.hi, sorted(row.vs), sorted(row.ids)


def expected_aggregates(members: Sequence[Event]) -> tuple:
    vs = [m[VALUE] for m in members]
    return len(vs), sum(vs), max(vs), sorted(vs), sorted(m[ID] for m in members)


def window_of(row) -> Window:
    return row.case, row.k, row.s, row.e


def output(runs: Sequence[Run]) -> List[tuple]:
    """(batch id, window, row) in batch order, without the flush key."""
    rows = [(b, r) for run in runs for b, r in run.rows if r.k != FLUSH_KEY]
    return [(b, window_of(r), r) for b, r in sorted(rows, key=lambda x: x[0])]


def diff_message(got: set, expected: set) -> str:
    return (f"missing windows {sorted(expected - got)[:5]} ({len(expected - got)}), "
            f"unexpected windows {sorted(got - expected)[:5]} ({len(got - expected)})")


def check_append(stream: Stream, runs: Sequence[Run]) -> None:
    """Every window of the batch reference on the kept rows emitted once, final, in the first
    micro-batch whose watermark reached its end; nothing else."""
    plan = batch_plan(stream, runs)
    check_closed_windows(plan, stream.reference(stream.late(plan)), output(runs))


def check_closed_windows(plan: Sequence[Batch], expected: Windows, emitted: List[tuple]) -> None:
    """`emitted` (output()'s rows) holds every window of `expected` once, final, in the first
    micro-batch of `plan` whose watermark reached its end; nothing else."""
    got: Dict[Window, tuple] = {}
    for b, w, r in emitted:
        assert w not in got, f"window {w} emitted twice: in batches {got[w][0]} and {b}"
        got[w] = (b, r)
    assert set(got) == set(expected), diff_message(set(got), set(expected))
    for w, members in expected.items():
        b, r = got[w]
        assert aggregates(r) == expected_aggregates(members), w
        closing = min(i for i, batch in enumerate(plan) if batch.watermark * MS >= w[3])
        assert b == closing, (
            f"window {w} emitted in batch {b} (watermark {plan[b].watermark} ms), expected in "
            f"batch {closing}, the first whose watermark ({plan[closing].watermark} ms) "
            f"reaches its end")


def check_update(stream: Stream, runs: Sequence[Run]) -> None:
    """Each micro-batch emits the current row of exactly the windows whose rows changed in it
    (new windows included); every emitted row is the window's current row; the last one its
    final row."""
    plan = batch_plan(stream, runs)
    late = stream.late(plan)
    emitted: Dict[int, set] = defaultdict(set)
    last = {}
    for b, w, r in output(runs):
        assert w not in emitted[b], f"window {w} emitted twice in batch {b}"
        emitted[b].add(w)
        current = stream.reference(late, plan[b].files_through)
        assert w in current, f"batch {b} emitted {w}, which its rows so far do not make"
        assert aggregates(r) == expected_aggregates(current[w]), (
            f"batch {b} emitted {w} as {aggregates(r)}, its rows so far make "
            f"{expected_aggregates(current[w])}")
        last[w] = r
    final = stream.reference(late)
    assert set(last) == set(final), diff_message(set(last), set(final))
    for w, members in final.items():
        assert aggregates(last[w]) == expected_aggregates(members), w
    for b, batch in enumerate(plan):
        before = stream.reference(late, batch.files_before)
        after = stream.reference(late, batch.files_through)
        changed = {w for w, m in after.items()
                   if sorted(e[ID] for e in m) != sorted(e[ID] for e in before.get(w, []))}
        assert changed <= emitted[b], (
            f"batch {b} changed {sorted(changed - emitted[b])[:5]} without emitting them")
        assert emitted[b] <= changed, (
            f"batch {b} emitted {sorted(emitted[b] - changed)[:5]}, whose rows did not change")


CHECKS = {"append": check_append, "update": check_update}


def operator_metrics(runs: Sequence[Run], name: str = OPERATOR) -> List[dict]:
    """The state operator entry named `name` of every micro-batch (exactly one each)."""
    found = []
    for run in runs:
        for p in run.progress:
            ops = [op for op in p["stateOperators"] if op.get("operatorName") == name]
            assert len(ops) == 1, (f"batch {p['batchId']}: state operators "
                                   f"{[op.get('operatorName') for op in p['stateOperators']]}")
            found.append(ops[0])
    return found


# --------------------------------------------------------------------------------------------
# Tests

def dropped_rows(runs: Sequence[Run], name: str = OPERATOR) -> int:
    return sum(op["numRowsDroppedByWatermark"] for op in operator_metrics(runs, name))


# One query per (mode, size, seed), shared by the tests that check its output and its metrics.
MODES = ["append", "update"]
SEEDS = range(3)
CASES = 6


@pytest.fixture(scope="module")
def random_run(spark, tmp_path_factory):
    """random_run(mode, size_text, seed) -> (stream, run), each query run once per module."""
    done: Dict[tuple, tuple] = {}

    def get(mode: str, size_text: str, seed: int):
        key = (mode, size_text, seed)
        if key not in done:
            stream = generate_stream(seed, SIZES[size_text], cases=CASES)
            folder = tmp_path_factory.mktemp(f"{mode}-{SIZES[size_text] // SEC}s-{seed}")
            write_files(str(folder / "in"), stream.files)
            try:
                with state_store(spark, ROCKSDB):
                    done[key] = (stream, run_query(spark, str(folder / "in"),
                                                   str(folder / "checkpoint"),
                                                   sliding_query(size_text), mode))
            except Exception as e:  # noqa: BLE001 - raised again for every test of this query
                done[key] = (stream, e)
        stream, run = done[key]
        if isinstance(run, Exception):
            raise run
        return stream, run

    return get


RANDOM = pytest.mark.parametrize("mode,size_text,seed", [
    (mode, size_text, seed) for mode in MODES for size_text in SIZES for seed in SEEDS])


@RANDOM
def test_random_streams_match_reference(random_run, mode, size_text, seed):
    """Append: every window of the batch reference on the kept rows exactly once, final, in the
    micro-batch whose watermark first reaches its end. Update: the current row of every
    changed window in each micro-batch, the last one final."""
    stream, run = random_run(mode, size_text, seed)
    CHECKS[mode](stream, [run])


@RANDOM
def test_late_rows_are_dropped_and_counted(random_run, mode, size_text, seed):
    """numRowsDroppedByWatermark of the slidingWindowAggregate operator, summed over the
    micro-batches, is the number of rows at or below the watermark of the micro-batch before
    theirs; the operator reports numRowsTotal."""
    stream, run = random_run(mode, size_text, seed)
    metrics = operator_metrics([run])
    assert all("numRowsTotal" in op for op in metrics)
    assert dropped_rows([run]) == len(stream.late(batch_plan(stream, [run])))


def test_random_streams_exercise_lateness():
    """The generated streams have what they should: several files, rows dropped as late, rows
    exactly at the late threshold, rows out of order but kept."""
    streams = [generate_stream(seed, SIZES[s], cases=CASES) for s in SIZES for seed in SEEDS]
    at_threshold = out_of_order_kept = 0
    for stream in streams:
        plan = stream.plan()
        late = stream.late(plan)
        assert len(stream.files) >= 4 and late
        previous, newest = 0, 0
        for batch in plan:
            for e in (e for f in stream.files[batch.files_before:batch.files_through] for e in f):
                at_threshold += e[TIME] == previous * MS
                out_of_order_kept += e[ID] not in late and e[TIME] < newest
                newest = max(newest, e[TIME])
            previous = batch.watermark
    assert at_threshold and out_of_order_kept


def test_explicit_stream_emits_each_window_when_the_watermark_passes_its_end(
        spark, rocksdb, tmp_path):
    """Size 10 s, delay 5 s; times in seconds after BASE. Batch watermarks: 0, 9, 15, 25, then
    the flush's (batch 4, no data). The row at 9 s arrives in batch 2, exactly at the watermark
    of batch 1: dropped; the windows [0, 10] and [4, 14] it would have joined are emitted in
    batch 2 (watermark 15 s) without it."""
    def ev(t_sec, i):
        return (0, "a", BASE + t_sec * SEC, i, i)

    events = [ev(10, 1), ev(14, 2), ev(20, 3), ev(9, 4), ev(30, 5)]
    files = [events[:2], events[2:3], events[3:]]
    stream = Stream(files + [[flush_event(events, 10 * SEC)]], 10 * SEC)
    assert [b.watermark for b in stream.plan()][:4] == [0, (BASE + 9 * SEC) // MS,
                                                         (BASE + 15 * SEC) // MS,
                                                         (BASE + 25 * SEC) // MS]
    assert stream.late(stream.plan()) == {4}
    write_files(str(tmp_path / "in"), stream.files)
    run = run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"),
                    sliding_query("10 seconds"), "append")
    got = sorted((b, r.s - BASE, r.e - BASE, sorted(r.vs)) for b, _, r in output([run]))
    right = 1  # right windows start one micro-second after their row
    assert got == [
        (2, 0 * SEC, 10 * SEC, [1]),
        (2, 4 * SEC, 14 * SEC, [1, 2]),
        (3, 10 * SEC, 20 * SEC, [1, 2, 3]),
        (3, 10 * SEC + right, 20 * SEC + right, [2, 3]),
        (3, 14 * SEC + right, 24 * SEC + right, [3]),
        (4, 20 * SEC, 30 * SEC, [3, 5]),
        (4, 20 * SEC + right, 30 * SEC + right, [5]),
    ]
    check_append(stream, [run])
    assert dropped_rows([run]) == 1


def restart_point(stream: Stream) -> int:
    """A file near the middle at which to stop and restart such that the no-data batch ending
    the first run changes no row's lateness (a row of the next file between the watermarks of
    the two batches before it would be late only after the restart): then the two runs must
    emit exactly what one uninterrupted run emits."""
    uninterrupted = stream.late(stream.plan())
    middle = len(stream.files) // 2
    for h in sorted(range(1, len(stream.files)), key=lambda h: abs(h - middle)):
        if stream.late(stream.plan([h])) == uninterrupted:
            return h
    raise AssertionError("harness: no restart point keeps the late rows")


@pytest.mark.parametrize("mode,seed", [("append", 20), ("append", 21), ("update", 20)])
def test_restart_from_checkpoint_continues_where_it_stopped(spark, rocksdb, tmp_path, mode,
                                                            seed):
    """Half of the files, stop, the other half (and the flush) with the same checkpoint: the
    two runs together emit what one uninterrupted run emits (append: no window twice)."""
    stream = generate_stream(seed, 10 * SEC, cases=5)
    half = restart_point(stream)
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "checkpoint")
    build = sliding_query("10 seconds")
    write_files(source, stream.files[:half])
    first = run_query(spark, source, checkpoint, build, mode)
    write_files(source, stream.files[half:], first=half)
    second = run_query(spark, source, checkpoint, build, mode)
    assert first.progress and second.progress
    assert min(p["batchId"] for p in second.progress) > max(p["batchId"] for p in first.progress)
    plan = batch_plan(stream, [first, second])
    assert stream.late(plan) == stream.late(stream.plan())  # as if it never stopped
    CHECKS[mode](stream, [first, second])
    assert dropped_rows([first, second]) == len(stream.late(plan))


def test_append_without_watermark_is_rejected_at_start(spark, rocksdb, tmp_path):
    write_files(str(tmp_path / "in"), [[(0, "a", BASE, 1, 1)]])
    with pytest.raises(Exception) as e:
        run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"),
                  sliding_query("10 seconds", watermark=False), "append")
    assert "watermark" in str(e.value).lower()


@pytest.mark.parametrize("mode", MODES)
def test_default_state_store_gives_the_same_output(spark, tmp_path, mode):
    """SPEC: state lives in Spark's state store, RocksDB when the session selects it. Spark's
    default provider (HDFS-backed: no column families, no ordered scans) works too and emits
    the same windows at the same micro-batches, with the same late rows dropped."""
    stream = generate_stream(0, 3 * SEC, cases=CASES)
    write_files(str(tmp_path / "in"), stream.files)
    with state_store(spark, HDFS):
        run = run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"),
                        sliding_query("3 seconds"), mode)
    CHECKS[mode](stream, [run])
    assert dropped_rows([run]) == len(stream.late(batch_plan(stream, [run])))


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
def test_aggregation_without_grouping_keys(spark, rocksdb, tmp_path, function):
    """GROUP BY the window alone: one group, one state store (the operator runs in a single
    partition), through a foreachBatch sink, which checks that every state store it expects
    committed. Rows in order, none late: the emitted windows are the batch reference's."""
    seconds = [[0, 0.4, 1.1, 2.5], [3.0, 3.2, 5.9], [7.5, 8.0]]
    files, next_id = [], 0
    for batch in seconds:
        files.append([])
        for s in batch:
            files[-1].append((0, "a", BASE + int(s * SEC), next_id % 7, next_id))
            next_id += 1
    events = [e for f in files for e in f]
    files.append([flush_event(events, 2 * SEC)])  # in the same group: closes the last windows
    write_files(str(tmp_path / "in"), files)

    def build(stream: DataFrame) -> DataFrame:
        return (stream.withWatermark("ts", DELAY_TEXT)
                .groupBy(getattr(swa, function)("ts", "2 seconds"))
                .agg(F.count("*").alias("n"), F.sum("v").alias("total"),
                     F.collect_list("id").alias("ids"))
                .select(*window_micros(function), "n", "total", "ids"))

    run = run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"), build, "append")
    got = [(r.s, r.e, r.n, r.total, tuple(sorted(r.ids))) for _, r in run.rows]
    assert len(got) == len(set(got)), "a window emitted twice"
    windows_of = sliding_windows if function == "sliding_window" else batch_windows
    reference = windows_of(events, 2 * SEC, key=lambda e: None, time=lambda e: e[TIME])
    assert sorted(got) == sorted(
        (s, e, len(m), sum(x[VALUE] for x in m), tuple(sorted(x[ID] for x in m)))
        for (_, s, e), m in reference.items())
    ops = operator_metrics([run], "slidingWindowAggregate" if function == "sliding_window"
                           else "batchWindowAggregate")
    assert {op["numStateStoreInstances"] for op in ops} == {1}


@pytest.mark.parametrize("mode", MODES)
def test_decimal_aggregates_in_the_state(spark, rocksdb, tmp_path, mode):
    """sum and avg of a DECIMAL(5,2): the optimizer computes them on unscaled longs
    (DecimalAggregates), so the state keeps long buffers and the output converts them back."""
    from decimal import ROUND_HALF_UP, Decimal

    stream = generate_stream(3, 3 * SEC, cases=3)
    write_files(str(tmp_path / "in"), stream.files)

    def build(df: DataFrame) -> DataFrame:
        return (df.withWatermark("ts", DELAY_TEXT)
                .withColumn("d", (F.col("v") / 4).cast("decimal(5,2)"))
                .groupBy("case", "k", swa.sliding_window("ts", "3 seconds"))
                .agg(F.sum("d").alias("total"), F.avg("d").alias("mean"),
                     F.collect_list("id").alias("ids"))
                .select("case", "k", *window_micros(), "total", "mean", "ids"))

    run = run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"), build, mode)
    plan = batch_plan(stream, [run])
    late = stream.late(plan)
    last = {}
    for b, w, r in output([run]):
        last[w] = r  # in update mode, a window's last row is its final value
    final = stream.reference(late)
    assert set(last) == set(final), diff_message(set(last), set(final))
    for w, members in final.items():
        ds = [Decimal(m[VALUE]) / 4 for m in members]
        ds = [d.quantize(Decimal("0.01")) for d in ds]
        assert last[w].total == sum(ds), w
        assert last[w].mean == (sum(ds) / len(ds)).quantize(Decimal("0.000001"), ROUND_HALF_UP), w
        assert sorted(last[w].ids) == sorted(m[ID] for m in members), w


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
def test_window_column_keeps_the_watermark_for_a_second_aggregation(spark, rocksdb, tmp_path, function):
    """The window column carries the time column's watermark, under its default name too, as
    window() does: a second stateful operator can follow in append mode. Here the windows of
    each key are re-aggregated by their bounds; once the flush row closes everything, the
    second aggregation emitted each window's row count summed over the keys."""
    stream = generate_stream(5, 3 * SEC, cases=1)
    write_files(str(tmp_path / "in"), stream.files)
    column = getattr(swa, function)("ts", "3 seconds")

    def build(df: DataFrame) -> DataFrame:
        first = (df.withWatermark("ts", DELAY_TEXT).groupBy("case", "k", column)
                 .agg(F.count("*").alias("n")).where(F.col("k") != FLUSH_KEY))
        assert "spark.watermarkDelayMs" in first.schema[function].metadata
        return (first.groupBy(function).agg(F.sum("n").alias("rows"))
                .select(F.lit(0).alias("case"), F.lit("all").alias("k"), *window_micros(function),
                        "rows"))

    run = run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"), build, "append")
    got = sorted((r.s, r.e, r.rows) for _, r in run.rows)
    assert len(got) == len({(s, e) for s, e, _ in got}), "a window emitted twice"
    if function == "batch_window":
        return  # its windows depend on the micro-batches: the sliding case checks the values
    late = stream.late(batch_plan_of_first_operator(run))
    by_bounds: Dict[Tuple[int, int], int] = defaultdict(int)
    for (_, _, s, e), members in stream.reference(late).items():
        by_bounds[(s, e)] += len(members)
    assert got == sorted((s, e, n) for (s, e), n in by_bounds.items())


def batch_plan_of_first_operator(run: Run) -> List[Batch]:
    """What the sliding-window operator saw: the micro-batches of the run, with their
    watermarks (the harness's plan, from the progress reports)."""
    progress = sorted(run.progress, key=lambda p: p["batchId"])
    plan, read = [], 0
    for p in progress:
        before = read
        if p["numInputRows"]:
            read += 1
        plan.append(Batch(before, read, watermark_ms(p["eventTime"]["watermark"])))
    return plan


def test_restart_in_append_mode_from_an_update_mode_checkpoint(spark, rocksdb, tmp_path):
    """A checkpoint written in update mode, restarted in append mode: the append run emits each
    window that closes after the restart once, whole, and none of those that closed before (the
    update run expired rows they held and emitted them already)."""
    def event(seconds: float, row_id: int) -> Event:
        return (0, "a", BASE + int(seconds * SEC), 1, row_id)

    files = [[event(0, 0), event(1, 1)], [event(4, 2)], [event(17.5, 3)],  # update mode
             [event(18, 4)], [event(19, 5), event(30, 6)], [event(100, 7)]]  # append mode
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "checkpoint")
    build = sliding_query("10 seconds")
    write_files(source, files[:3])
    first = run_query(spark, source, checkpoint, build, "update")
    restart_watermark = watermark_ms(sorted(first.progress, key=lambda p: p["batchId"])[-1]
                                     ["eventTime"]["watermark"]) * MS
    write_files(source, files[3:], first=3)
    second = run_query(spark, source, checkpoint, build, "append")
    got = sorted((r.s, r.e, tuple(sorted(r.ids))) for _, r in second.rows)
    events = [e for f in files for e in f]
    final_watermark = max(e[TIME] for e in events) - DELAY
    expected = sorted((s, e, tuple(sorted(m[ID] for m in ms))) for (_, s, e), ms in sliding_windows(
        events, 10 * SEC, key=lambda r: r[KEY], time=lambda r: r[TIME]).items()
        if restart_watermark < e <= final_watermark)
    assert got == expected


@pytest.mark.parametrize("provider", [ROCKSDB, HDFS], ids=["rocksdb", "default"])
@pytest.mark.parametrize("seed", [4, 23, 30])
def test_random_streams_restarted_from_update_mode_in_append_mode(spark, tmp_path, provider, seed):
    """Update mode over the first half of a random stream, then append mode from its checkpoint:
    the append run emits exactly the windows that close after the restart, once, whole, in the
    micro-batch whose watermark first reaches their end, whether or not their group receives
    rows after the restart (with RocksDB, the time index of the update run must say when)."""
    stream = generate_stream(seed, 10 * SEC, cases=5)
    half = restart_point(stream)
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "checkpoint")
    build = sliding_query("10 seconds")
    with state_store(spark, provider):
        write_files(source, stream.files[:half])
        first = run_query(spark, source, checkpoint, build, "update")
        write_files(source, stream.files[half:], first=half)
        second = run_query(spark, source, checkpoint, build, "append")
    plan = batch_plan(stream, [first, second])
    restart = plan[max(p["batchId"] for p in first.progress)].watermark * MS
    expected = {w: m for w, m in stream.reference(stream.late(plan)).items() if w[3] > restart}
    quiet = {w[:2] for w in expected} - {(e[CASE], e[KEY]) for f in stream.files[half:] for e in f}
    assert quiet, "harness: every group with windows left receives rows after the restart"
    check_closed_windows(plan, expected, output([second]))


def test_update_mode_after_append_mode_leaves_no_state_of_closed_groups(spark, tmp_path):
    """A run in append mode stores each group's queue (Meta and Suffix rows); restarted in update
    mode, a group whose rows all expire loses them too: once the watermark has passed every
    window, only the flush key's row is left (read with Spark's state data source)."""
    events = [(0, k, BASE + t * SEC, 1, i) for i, (k, t) in enumerate(
        [("a", 0), ("b", 1), ("a", 4), ("a", 12), ("b", 13), ("a", 30), ("b", 31)])]
    files = [events[:3], events[3:5], events[5:]]
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "checkpoint")
    build = sliding_query("10 seconds")
    with state_store(spark, HDFS):
        write_files(source, files[:2])
        run_query(spark, source, checkpoint, build, "append")
        stored = spark.read.format("statestore").option("operatorId", 1000).load(checkpoint)
        assert stored.where("key.__kind != 0").count() > 0  # the append run stored queues
        write_files(source, files[2:] + [[flush_event(events, 10 * SEC)]], first=2)
        run_query(spark, source, checkpoint, build, "update")
        left = spark.read.format("statestore").option("operatorId", 1000).load(checkpoint)
        assert [(r.k, r.kind) for r in left.selectExpr("key.k", "key.__kind AS kind").collect()] == [
            (FLUSH_KEY, 0)]


def test_update_mode_leaves_windows_whose_rows_did_not_change(spark, rocksdb, tmp_path):
    """A new row at 7 s - 1 us has a right window [7 s, 17 s] with the bounds of the left
    window of the row at 17 s, and the same rows: that window did not change and is not
    emitted again (check_update requires exactly the changed windows)."""
    files = [[(0, "a", BASE + 10 * SEC, 1, 0), (0, "a", BASE + 17 * SEC, 1, 1)],
             [(0, "a", BASE + 7 * SEC - 1, 1, 2)]]
    events = [e for f in files for e in f]
    stream = Stream(files + [[flush_event(events, 10 * SEC)]], 10 * SEC)
    write_files(str(tmp_path / "in"), stream.files)
    run = run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"),
                    sliding_query("10 seconds"), "update")
    check_update(stream, [run])
    assert sorted(w[2:] for b, w, _ in output([run]) if b == 1) == [
        (BASE - 3 * SEC - 1, BASE + 7 * SEC - 1), (BASE, BASE + 10 * SEC)]
