"""The streaming test harness: sliding windows in Structured Streaming (docs/contract.md, "Sliding
windows in Structured Streaming") checked differentially against the brute-force batch reference
(tests/support/reference.py). The streaming test suites (sliding windows, batch windows, checkpoint
fixtures) share it; the pytest fixtures built on it are in conftest.py.

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

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa
from reference import sliding_windows
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


def arrival_time(rng: random.Random, clock: int, times: Sequence[int], step: int, late_span: int,
                 odds: Tuple[float, float, float] = (0.2, 0.45, 0.7)) -> int:
    """The time of a row that arrives at `clock`, on a grid of `step`: by the cumulative `odds`,
    one of the earlier `times` again, `clock` (in order), out of order within the delay, or
    beyond it, at most `late_span` further back (often late)."""
    r = rng.random()
    if times and r < odds[0]:
        return rng.choice(times)
    if r < odds[1]:
        return clock
    if r < odds[2]:
        return clock - rng.randint(1, DELAY // step) * step
    return clock - DELAY - rng.randint(0, late_span // step) * step


def generate_stream(seed, size: int, cases: int = 4, name: Optional[str] = None,
                    keys: Sequence[Optional[str]] = ("a", "b", "c"), rows: Tuple[int, int] = (3, 12),
                    late_span: Optional[int] = None) -> Stream:
    """Rows of a few `keys` per case in arrival order: mostly in order, duplicate times, rows out
    of order within the delay and beyond it (often late, at most `late_span` back, by default
    twice the size past the delay), times on a half-second grid (so rows fall exactly on window
    bounds and on the watermark) with some a millisecond off; split into 4 to 8 files (no row is
    late in the first two micro-batches), then the flush file. `name` seeds the generator (by
    default from the seed and the size)."""
    rng = random.Random(name or f"sliding-streaming-{seed}-{size}")
    step = 500 * MS
    arrivals = []
    for case in range(cases):
        case_keys = rng.sample(list(keys), rng.randint(1, len(keys)))
        clock = BASE + rng.randint(0, 4) * step  # arrival progress of this case
        times: List[int] = []
        for _ in range(rng.randint(*rows)):
            clock += rng.choice([0, 0, 1, 2, 4, 6]) * step
            t = arrival_time(rng, clock, times, step, late_span or 2 * size + DELAY)
            if rng.random() < 0.1:
                t += rng.choice([-MS, MS])
            times.append(t)
            arrivals.append((clock, rng.random(), case, rng.choice(case_keys), t, rng.randint(-20, 20)))
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
    """A progress report as a dict: PySpark 3.5 gives dicts, PySpark 4 progress objects."""
    if isinstance(p, dict):
        return p
    j = p.json
    return json.loads(j() if callable(j) else j)


def run_query(spark: SparkSession, source: str, checkpoint: str,
              build: Callable[[DataFrame], DataFrame], mode: str,
              read: Callable[[SparkSession, str], DataFrame] = None) -> Run:
    """Runs build(stream) with availableNow over every file of `source` not read yet by the
    query of `checkpoint` (the stream read by `read`, read_stream by default); returns what the
    foreachBatch sink received and the progress."""
    rows: List[tuple] = []

    def collect(batch: DataFrame, batch_id: int) -> None:
        rows.extend((batch_id, r) for r in batch.collect())

    query = (build((read or read_stream)(spark, source)).writeStream.outputMode(mode)
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
def session_conf(spark: SparkSession, key: str, value: str) -> Iterator[None]:
    """`key` set to `value` on the session while the block runs."""
    old = spark.conf.get(key, None)
    spark.conf.set(key, value)
    try:
        yield
    finally:
        if old is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, old)


def state_store(spark: SparkSession, provider: str):
    return session_conf(spark, PROVIDER_CONF, provider)


# The state format of queries started in the block (state/StateFormatVersion.scala).
STATE_FORMAT_CONF = "spark.sql.slidingWindow.state.formatVersion"
# Internal: where the operator counts its state rows (state format 2 with RocksDB's time index),
# the provider counts them too and every micro-batch checks one against the other
# (state/WindowStateStore.scala); the tests' session sets it (conftest.py).
VERIFY_ROW_COUNT_CONF = "spark.sql.slidingWindow.state.verifyRowCount"
# How many Partial and Suffix rows a group keeps in its record (state format 2).
INLINE_ROWS_CONF = "spark.sql.slidingWindow.state.inlineRows"
# Append mode, state format 2: groups with at most this many rows are swept again in memory and
# keep no queue (0: every group keeps its queue).
RESWEEP_ROWS_CONF = "spark.sql.slidingWindow.state.resweepRows"
# State format 2: a large group keeps its rows but the oldest and newest hotRows of each kind in
# chunks of chunkRows rows, out of its record.
CHUNK_ROWS_CONF = "spark.sql.slidingWindow.state.chunkRows"
HOT_ROWS_CONF = "spark.sql.slidingWindow.state.hotRows"
# State format 2 with RocksDB: the bytes of group records an executor keeps between micro-batches
# (by default a tenth of its heap; 0: none).
RECORD_CACHE_CONF = "spark.sql.slidingWindow.state.recordCache.maxBytes"


def state_format(spark: SparkSession, version: int):
    return session_conf(spark, STATE_FORMAT_CONF, str(version))


def spark_version(spark: SparkSession) -> Tuple[int, int]:
    """(major, minor) of the running Spark."""
    major, minor = spark.version.split(".")[:2]
    return int(major), int(minor)


def has_state_reader(spark: SparkSession) -> bool:
    """Spark's state data source (`statestore`) came with Spark 4.0; it reads only the default
    provider's state of this operator (docs/streaming.md, "Reading the state")."""
    return spark_version(spark) >= (4, 0)


def has_time_index(spark: SparkSession, provider: str) -> bool:
    """Whether a query started now keeps a time index: RocksDB on Spark 4, whose state store has
    column families (docs/compatibility.md)."""
    return provider == ROCKSDB and spark_version(spark) >= (4, 0)


def has_ordered_rows(spark: SparkSession, provider: str) -> bool:
    """Whether a query started now reads a range of a group's rows by range scan: RocksDB on
    Spark 4.2 and later; before, by prefix scan of all its rows of a kind (docs/compatibility.md)."""
    return provider == ROCKSDB and spark_version(spark) >= (4, 2)


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

def dropped_rows(runs: Sequence[Run], name: str = OPERATOR) -> int:
    return sum(op["numRowsDroppedByWatermark"] for op in operator_metrics(runs, name))


def committed_batches(checkpoint: str) -> set:
    """The micro-batches in the commit log, which Spark writes once every state store of the
    micro-batch has committed and its sink has returned."""
    folder = os.path.join(checkpoint, "commits")
    return {int(n) for n in os.listdir(folder) if n.isdigit()} if os.path.isdir(folder) else set()
