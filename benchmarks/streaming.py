"""Streaming sliding windows with RocksDB state against Spark's own tumbling window() on the
same stream, shape by shape (docs/performance.md, "Structured Streaming").

    python -m benchmarks.streaming [--rounds 3] [--measured 10] [--profile] [--report FILE]

The input is Spark's `rate-micro-batch` source: the same number of rows in every micro-batch,
event time advancing by `--advance` seconds per micro-batch (each row's time spread over that
span), keys `value % groups`, so every group receives rows-per-batch / groups rows per
micro-batch. Each query runs micro-batches as fast as it can (trigger every 0 seconds, `noop`
sink, watermark delay `--delay`) until its windows are full (event time past window + delay),
then `--measured` more, over which it is measured, or more: at least one cycle of the window
(window + delay, in micro-batches), the period of its state's work (measured_batches):

- sustained rows/s: input rows / time of those micro-batches;
- ms per micro-batch, and what the operator reports: state rows, state rows read, written and
  removed, windows emitted.

For each shape (groups x rows per group per micro-batch x window, SHAPES), on the same stream:
(a) sliding_window, append mode; (b) sliding_window, update mode; (c) Spark's tumbling
`window()` with the same aggregates (count, sum, max), append mode. Each shape runs in a JVM of
its own (a child process, `--shapes`): what the JIT compiled, the heap and the caches that the
queries of the shapes before left behind stay out of its figures (the 1,200 s shape, run last in
one JVM after twelve queries, gave update mode 79k to 83k rows/s; in a JVM of its own, 85k to
96k). The three run `--rounds` times, interleaved and each round in another order (a, b, c; b,
c, a; c, a, b; ...), the state stores of one unloaded (and its tasks ended: settle) before the
next starts; a query's figures are those of its median round (one query measured alone varied up
to 2x with its place in the run). With `--profile`, once the shape is measured, each query runs
once more with a JFR recording of as many micro-batches again after the measured ones (the
profiler slows some code more than other, and the JVM stays slower once it has recorded, so it
stays out of the figures): the share of CPU samples by where the sampled thread was (RocksDB,
this extension, Spark, ...). The JVM then runs with `-XX:+DebugNonSafepoints`, so that samples
are put on the line that was running.

`--groups`, `--rows-per-batch` and `--window` run one shape of your own instead, in this process;
`--shapes 100000:1:60,1000:100:60` shapes of your own (groups:rows per group:window seconds),
each in a child process; `--only append,window`
runs some of a shape's queries (no report, their JSON lines only, which list each measured
micro-batch's milliseconds in `batch_ms`); `--profile --methods 40` also prints the 40 methods with
the most CPU samples, by samples in the method itself and on the stack.
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa
from benchmarks.common import machine_markdown, markdown_table, publish, session

START_MS = 1_704_067_200_000
ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
TRACK_ROWS = "spark.sql.streaming.stateStore.rocksdb.trackTotalNumberOfRows"


def source(spark: SparkSession, args) -> DataFrame:
    """`rows_per_batch` rows per micro-batch over `groups` keys, at times spread over the
    micro-batch's `advance` seconds; with `distinct_times`, each of a group's rows of a micro-batch
    at its own millisecond (else a group's rows of a micro-batch share a few); with `late_every`,
    every such row an hour back (late)."""
    advance_ms = int(args.advance * 1000)
    spread = (f"floor(value / {args.groups}) * 7919" if getattr(args, "distinct_times", False)
              else "value * 7919")
    late_every = getattr(args, "late_every", 0)
    late = f" - IF(value % {late_every} = 0, 3600000, 0)" if late_every else ""
    return (spark.readStream.format("rate-micro-batch")
            .option("rowsPerBatch", args.rows_per_batch)
            .option("numPartitions", args.partitions)
            .option("startTimestamp", START_MS)
            .option("advanceMillisPerBatch", advance_ms)
            .load()
            .selectExpr(f"value % {args.groups} AS k",
                        f"timestamp_millis(unix_millis(timestamp) + pmod({spread}, {advance_ms}){late}) AS ts",
                        "value AS v")
            .withWatermark("ts", f"{args.delay} seconds"))


def measure(spark: SparkSession, args, name: str, window_seconds: float,
            build: Callable[[DataFrame], DataFrame], conf: Optional[Dict[str, str]] = None,
            mode: str = "append", profile: bool = False) -> Dict:
    """Runs one configuration; `conf` is set on the session while it runs (a new query, with a
    new checkpoint, gets new state store providers, which read it). With `profile`, a JFR
    recording of the driver JVM (local mode: the executors too) covers as many micro-batches
    again, after the measured ones."""
    # Full windows: the watermark is past window + delay from the first row on.
    fill = int((window_seconds + args.delay) / args.advance) + 2
    measured = measured_batches(args, window_seconds)
    checkpoint = tempfile.mkdtemp(prefix="swa-bench-")
    for k, v in (conf or {}).items():
        spark.conf.set(k, v)
    query = (build(source(spark, args)).writeStream.format("noop").outputMode(mode)
             .option("checkpointLocation", checkpoint).trigger(processingTime="0 seconds").start())
    recording = None
    try:
        deadline = time.time() + args.timeout
        # The profile covers as many micro-batches again, after the measured ones: a JFR recording
        # slows allocation-heavy code more than the rest, and stays out of the figures so.
        profiled = args.measured if profile else 0
        while True:
            done = batches_with_input(query, fill + measured + profiled)
            if profile and recording is None and done >= fill + measured:
                recording = Recording(spark, args.methods)
            if done >= fill + measured + profiled:
                break
            if query.exception() is not None:
                raise RuntimeError(query.exception())
            if time.time() > deadline:
                raise RuntimeError(f"{name}: {done} micro-batches in {args.timeout} s")
            time.sleep(0.5)
    finally:
        query.stop()
        settle(spark)
        profile_summary = recording.stop() if recording is not None else None
        shutil.rmtree(checkpoint, ignore_errors=True)
        for k in conf or {}:
            spark.conf.unset(k)
    steady = sorted((p for p in reports(query) if p["numInputRows"] > 0),
                    key=lambda p: p["batchId"])[fill:fill + measured]
    ms = [p["durationMs"]["triggerExecution"] for p in steady]
    ops = [p["stateOperators"][0] for p in steady]
    rows = sum(p["numInputRows"] for p in steady)
    starts = [datetime.fromisoformat(p["timestamp"].replace("Z", "+00:00")) for p in steady]
    return {
        "name": name,
        "mode": mode,
        "batches": len(steady),
        "rows_per_s": rows / (sum(ms) / 1000),
        # Over wall-clock time, from the first measured micro-batch's start to the last one's: what
        # Spark does for a micro-batch after its `triggerExecution` (its progress) counts too.
        "wall_rows_per_s": sum(p["numInputRows"] for p in steady[:-1]) / (starts[-1] - starts[0]).total_seconds(),
        "dropped": statistics.mean(o["numRowsDroppedByWatermark"] for o in ops),
        "late_rows_written": statistics.mean(o.get("customMetrics", {}).get("numLateRowsWritten", 0) for o in ops),
        "ms_median": statistics.median(ms),
        # Each measured micro-batch in order: a cycle is not flat (the groups of a large window,
        # all in step, flip their queues in the same micro-batches: docs/performance.md).
        "batch_ms": ms,
        "rows_in": rows / len(steady),
        "state_rows": statistics.mean(o["numRowsTotal"] for o in ops),
        "rows_read": statistics.mean(o.get("customMetrics", {}).get("numStateRowsRead", 0) for o in ops),
        "rows_written": statistics.mean(o["numRowsUpdated"] for o in ops),
        "rows_removed": statistics.mean(o.get("numRowsRemoved", 0) for o in ops),
        # The state's size on disk (RocksDB's SST files): state rows say little where one row
        # holds a whole group (state format 2).
        "state_bytes": statistics.mean(o.get("customMetrics", {}).get("rocksdbSstFileSize", 0) for o in ops),
        # The state operators' own time per micro-batch (`stateOperators`: summed over their tasks,
        # which run two at a time here): their updates, and the state store's commit.
        "updates_ms": statistics.median(sum(o["allUpdatesTimeMs"] for o in p["stateOperators"]) for p in steady),
        "commit_ms": statistics.median(sum(o["commitTimeMs"] for o in p["stateOperators"]) for p in steady),
        "profile": profile_summary,
        "emitted": statistics.mean(o["numRowsUpdated"] if "numWindowsEmitted" not in o.get("customMetrics", {})
                                   else o["customMetrics"]["numWindowsEmitted"] for o in ops),
    }


def measured_batches(args, window_seconds: float) -> int:
    """`--measured`, or a whole cycle of the window if it is longer: the micro-batches from a
    row's arrival to the watermark passing its window. Groups that receive rows in every
    micro-batch do their periodic state work in step (window() closes every group's window in
    the same micro-batch; sliding_window's large groups rebuild the front of their queues
    together), so ten micro-batches of a window forty long would count that work once or not at
    all, by chance: on the 1,200 s window, they gave 33k rows/s where a whole cycle gave 41k."""
    return max(args.measured, math.ceil((window_seconds + args.delay) / args.advance))


def batches_with_input(query, wanted: int) -> int:
    """How many of the query's micro-batches had input, counted from its reports only once the
    last one's id says there may be `wanted` (before, every micro-batch of the rate source has
    input): reading every report as JSON twice a second took CPU from the query it measures."""
    last = query.lastProgress
    if last is None:
        return 0
    last = last if isinstance(last, dict) else json.loads(last.json)
    if last["batchId"] + 1 < wanted:
        return last["batchId"] + 1
    return sum(1 for p in reports(query) if p["numInputRows"] > 0)


def reports(query) -> List[Dict]:
    """The query's recent progress reports as dicts (PySpark 3.5 gives dicts, 4 objects)."""
    return [p if isinstance(p, dict) else json.loads(p.json) for p in query.recentProgress]


class Recording:
    """A JFR recording of this session's JVM (`jcmd`), summarized as the shares of its CPU samples
    by where the sampled thread was: the first frame, from the top of its stack, of a known part
    (JDK and Scala library frames are passed over, so a TreeMap call counts for its caller)."""

    PARTS = [
        ("RocksDB (JNI)", ("org.rocksdb.",)),
        ("Spark state store", ("org.apache.spark.sql.execution.streaming.state.",)),
        ("sliding-window-agg", ("org.apache.spark.sql.slidingwindow.",)),
        ("Spark generated code", ("org.apache.spark.sql.catalyst.expressions.GeneratedClass",
                                  "org.apache.spark.sql.catalyst.expressions.SpecificUnsafe")),
        ("Spark aggregation", ("org.apache.spark.sql.execution.aggregate.",)),
        ("Spark shuffle and sort", ("org.apache.spark.shuffle.", "org.apache.spark.util.collection.",
                                    "org.apache.spark.sql.execution.UnsafeExternalRowSorter",
                                    "org.apache.spark.unsafe.", "net.jpountz.", "com.github.luben.",
                                    "org.apache.spark.io.", "org.apache.spark.storage.")),
        ("Spark (other)", ("org.apache.spark.",)),
    ]
    LIBRARIES = ("java.", "jdk.", "sun.", "scala.")

    def __init__(self, spark: SparkSession, methods: int = 0):
        self.methods = methods  # print this many of the methods most sampled (self and total)
        self.pid = str(spark._jvm.java.lang.ProcessHandle.current().pid())
        self.name = f"swa-bench-{time.monotonic_ns()}"
        self.file = os.path.join(tempfile.mkdtemp(prefix="swa-jfr-"), "recording.jfr")
        subprocess.run(["jcmd", self.pid, "JFR.start", f"name={self.name}", "settings=profile"],
                       check=True, capture_output=True)

    def stop(self) -> Dict[str, float]:
        subprocess.run(["jcmd", self.pid, "JFR.stop", f"name={self.name}", f"filename={self.file}"],
                       check=True, capture_output=True)
        counts: collections.Counter = collections.Counter()
        own: collections.Counter = collections.Counter()  # the sampled method itself
        total: collections.Counter = collections.Counter()  # a method on the sampled stack
        for event in ("jdk.ExecutionSample", "jdk.NativeMethodSample"):
            out = subprocess.run(["jfr", "print", "--json", "--stack-depth", "40", "--events", event,
                                  self.file], check=True, capture_output=True, text=True).stdout
            for e in json.loads(out)["recording"]["events"]:
                frames = [f["method"]["type"]["name"].replace("/", ".")
                          for f in e["values"]["stackTrace"]["frames"]]
                part = self.part(frames)
                # A thread waiting in native code (sockets, locks) is not CPU; RocksDB's calls are.
                if event == "jdk.ExecutionSample" or part == "RocksDB (JNI)":
                    counts[part] += 1
                    if self.methods:
                        names = [f"{f['method']['type']['name'].replace('/', '.')}.{f['method']['name']}"
                                 for f in e["values"]["stackTrace"]["frames"]]
                        if names:
                            own[names[0]] += 1
                        total.update(set(names))
        shutil.rmtree(os.path.dirname(self.file), ignore_errors=True)
        samples = sum(counts.values()) or 1
        if self.methods:
            for title, counter in (("self", own), ("total", total)):
                print(f"-- methods by {title} CPU samples, of {samples}:", flush=True)
                for name, n in counter.most_common(self.methods):
                    print(f"{n / samples:6.1%}  {name}", flush=True)
        return {part: n / samples for part, n in counts.most_common()}

    @classmethod
    def part(cls, frames: List[str]) -> str:
        for name in frames:
            if name.startswith(cls.LIBRARIES):
                continue
            for part, prefixes in cls.PARTS:
                if name.startswith(prefixes):
                    return part
            return "other"
        return "JDK"


@dataclass
class Shape:
    groups: int
    rows_per_group: int  # rows per group per micro-batch
    window: float  # seconds

    @property
    def name(self) -> str:
        rows = "1 row" if self.rows_per_group == 1 else f"{self.rows_per_group} rows"
        return f"{self.groups:,} groups x {rows}, {self.window:.0f} s window"


# Every shape of issue "Streaming throughput": 1, 5 and 100 rows per group per micro-batch; 1,000
# and 100,000 groups; a window 20 times larger (at least ten times the state).
SHAPES = [
    Shape(100_000, 1, 60),
    Shape(20_000, 5, 60),
    Shape(1_000, 100, 60),
    Shape(1_000, 1, 60),
    Shape(100_000, 1, 1200),
]


def parse(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--groups", type=int, help="one shape of your own: groups")
    p.add_argument("--rows-per-batch", type=int, help="one shape of your own: rows per micro-batch")
    p.add_argument("--window", type=float, help="one shape of your own: window size, seconds")
    p.add_argument("--advance", type=float, default=30, help="seconds of event time per micro-batch")
    p.add_argument("--delay", type=float, default=10, help="watermark delay, seconds")
    p.add_argument("--measured", type=int, default=10,
                   help="micro-batches measured, once the windows are full")
    p.add_argument("--rounds", type=int, default=3,
                   help="runs of each query of a shape, interleaved; a query's figures are their median")
    p.add_argument("--partitions", type=int, default=4)
    p.add_argument("--timeout", type=float, default=1800, help="seconds allowed per query")
    p.add_argument("--profile", action="store_true", help="a JFR profile of each query")
    p.add_argument("--methods", type=int, default=0,
                   help="with --profile, print the N methods most sampled, by self and total samples")
    p.add_argument("--shapes", help="shapes of your own, each in a JVM of its own: "
                   "groups:rows per group per micro-batch:window seconds, comma-separated")
    p.add_argument("--json", action="store_true", help="print the results' JSON lines only, no report")
    p.add_argument("--only", help="run only these queries of each shape: append, update, window (comma-separated)")
    p.add_argument("--report", help="write the results as Markdown to this file")
    args = p.parse_args(argv)
    if args.groups or args.rows_per_batch or args.window:
        groups = args.groups or 100_000
        args.window = args.window or 60
        args.rows_per_batch = args.rows_per_batch or groups
        args.groups = groups
        args.shapes = [Shape(groups, max(1, args.rows_per_batch // groups), args.window)]
    elif args.shapes:
        args.shapes = [Shape(int(g), int(r), float(w))
                       for g, r, w in (shape.split(":") for shape in args.shapes.split(","))]
    else:
        args.shapes = SHAPES
    return args


AGGREGATES = lambda: [F.count("*").alias("n"), F.sum("v").alias("total"), F.max("v").alias("top")]  # noqa: E731


def shape_queries(spark: SparkSession, args, shape: Shape) -> Dict[str, Callable[[bool], Dict]]:
    """The queries of one shape that `--only` keeps: (a) sliding_window append, (b) sliding_window
    update, (c) window() append, on one stream; each runs with a profile or not."""
    shape_args = argparse.Namespace(**vars(args))
    shape_args.groups, shape_args.window = shape.groups, shape.window
    shape_args.rows_per_batch = args.rows_per_batch or shape.groups * shape.rows_per_group
    w = int(shape.window)

    def sliding(df: DataFrame) -> DataFrame:
        return df.groupBy("k", swa.sliding_window("ts", f"{w} seconds")).agg(*AGGREGATES())

    def tumbling(df: DataFrame) -> DataFrame:
        return df.groupBy("k", F.window("ts", f"{w} seconds")).agg(*AGGREGATES())

    queries = {
        "append": lambda profile: measure(spark, shape_args, "sliding_window", w, sliding, profile=profile),
        "update": lambda profile: measure(spark, shape_args, "sliding_window", w, sliding, mode="update",
                                          profile=profile),
        "window": lambda profile: measure(spark, shape_args, "window()", w, tumbling, profile=profile),
    }
    return {name: run for name, run in queries.items() if not args.only or name in args.only.split(",")}


def run_shape(spark: SparkSession, args, shape: Shape) -> List[Dict]:
    """A shape's queries `--rounds` times, each round in another order (round r starts with
    query r mod 3), so that no query always runs first after the warm-up or after the same query:
    one query's figures are the median of its rounds."""
    queries = shape_queries(spark, args, shape)
    names = list(queries)
    runs: Dict[str, List[Dict]] = {name: [] for name in names}
    for r in range(args.rounds):
        for name in round_order(names, r):
            runs[name].append(queries[name](False))
            release(spark)
    results = [median_run(runs[name]) for name in names]
    for r in results:
        r["shape"] = shape.name
        r["shape_key"] = [shape.groups, shape.rows_per_group, shape.window]
        r["jvm_pid"] = spark._jvm.java.lang.ProcessHandle.current().pid()  # the JVM it ran in
    return results


def round_order(names: List[str], r: int) -> List[str]:
    """The queries in round `r`'s order: starting with query r mod their number, then in turn."""
    return names[r % len(names):] + names[:r % len(names)]


def profile_shape(spark: SparkSession, args, shape: Shape, results: List[Dict]) -> None:
    """Adds to a shape's `results` the profile of each query, from one more run of it. Only once
    every figure is measured: the JVM stays slower after a JFR recording (the 20,000 x 5 shape,
    measured after one, gave 0.46x where runs without any gave 1x)."""
    queries = shape_queries(spark, args, shape)
    for result, name in zip(results, queries):
        result["profile"] = queries[name](True)["profile"]
        release(spark)


def median_run(runs: List[Dict]) -> Dict:
    """One query's rounds as one result: the figures of its median round (by rows/s; the lower
    middle of an even number), and every round's rows/s in `rounds`."""
    middle = sorted(runs, key=lambda r: r["rows_per_s"])[(len(runs) - 1) // 2]
    return dict(middle, rounds=[r["rows_per_s"] for r in runs])


def settle(spark: SparkSession, seconds: float = 60) -> None:
    """Waits for the stopped query's tasks to end. `query.stop()` returns once the stream's
    thread has ended, while the tasks of its last micro-batch are still being cancelled: some
    were committing state into the checkpoint removed next (CANNOT_COMMIT errors in the log),
    and their work overlapped the next query's first micro-batches."""
    tracker = spark.sparkContext.statusTracker()
    deadline = time.time() + seconds
    while tracker.getActiveStageIds() and time.time() < deadline:
        time.sleep(0.1)


def release(spark: SparkSession) -> None:
    """What a stopped query leaves behind, gone before the next one starts: its state stores
    (RocksDB instances stay loaded until the maintenance task, once a minute, unloads them), and
    its garbage."""
    state_store = getattr(spark._jvm.org.apache.spark.sql.execution.streaming.state, "StateStore$")
    getattr(state_store, "MODULE$").unloadAll()
    spark._jvm.java.lang.System.gc()


def main(argv: Optional[List[str]] = None) -> List[Dict]:
    args = parse(argv)
    # Killed (`kill`, a CI timeout), the run still stops its query and removes its checkpoint
    # (`measure`'s finally): a whole cycle of the 1,200 s shape leaves gigabytes behind otherwise.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    if len(args.shapes) == 1:
        results = measure_shape(args, args.shapes[0])
    else:
        results = [r for shape in args.shapes for r in shape_in_child(args, shape)]
    for r in results:
        print(json.dumps(r), flush=True)
    if not args.only and not args.json:  # the report compares the three queries of each shape
        publish(render(args, results), args.report)
    return results


def measure_shape(args, shape: Shape) -> List[Dict]:
    """A shape's queries, in a session of this process, then (`--profile`) their profiles."""
    spark = session("sliding-window-agg streaming benchmark", conf={
        "spark.sql.shuffle.partitions": str(args.partitions),
        "spark.sql.streaming.stateStore.providerClass": ROCKSDB,
        # Every progress report of a query is kept (Spark keeps 100): a whole cycle of the
        # 1,200 s window and its profile take more than 90 micro-batches.
        "spark.sql.streaming.numRecentProgressUpdates": "1000",
        # JFR's samples land on the nearest safepoint without this: a tenth of them on the wrong
        # line of the query's hot loops. It changes what the JIT records, not what it compiles.
        **({"spark.driver.extraJavaOptions": "-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints"}
           if args.profile else {}),
    })
    results = run_shape(spark, args, shape)
    if args.profile:  # after every measurement (see profile_shape)
        profile_shape(spark, args, shape, results)
    spark.stop()
    return results


OPTIONS = ("advance", "delay", "measured", "rounds", "partitions", "timeout", "methods", "only")


def shape_in_child(args, shape: Shape) -> List[Dict]:
    """A shape measured by a child process (a JVM of its own), with this run's options."""
    command = [sys.executable, "-m", "benchmarks.streaming", "--json",
               "--groups", str(shape.groups), "--rows-per-batch", str(shape.groups * shape.rows_per_group),
               "--window", str(shape.window)]
    for option in OPTIONS:
        if getattr(args, option) is not None:
            command += [f"--{option.replace('_', '-')}", str(getattr(args, option))]
    if args.profile:
        command.append("--profile")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # Its report lines pass through; its stderr (Spark's log) goes where this process's goes.
    child = subprocess.run(command, cwd=root, stdout=subprocess.PIPE, text=True)
    lines = child.stdout.splitlines()
    for line in lines:
        if not line.startswith("{"):
            print(line, flush=True)
    if child.returncode != 0:
        raise RuntimeError(f"{shape.name}: the child process failed ({child.returncode})")
    return [json.loads(line) for line in lines if line.startswith("{")]


def render(args, results: List[Dict]) -> str:
    def per_row(r: Dict, field: str) -> str:
        return f"{r[field] / r['rows_in']:.2f}" if r[field] else "-"

    rows, notes = [], []
    for i in range(0, len(results), 3):
        append, update, tumbling = results[i:i + 3]
        for r in (append, update, tumbling):
            query = f"{r['name']}, {r['mode']}"
            ratio = "1" if r is tumbling else f"{r['rows_per_s'] / tumbling['rows_per_s']:.2f}x"
            profile = ", ".join(f"{part} {share:.0%}" for part, share in list(r["profile"].items())[:4]) \
                if r.get("profile") else "-"
            rounds = ", ".join(f"{x / 1000:,.0f}k" if x >= 10_000 else f"{x:,.0f}" for x in r["rounds"])
            rows.append([r["shape"] if r is append else "", query, f"{r['rows_per_s']:,.0f}", rounds, ratio,
                         f"{r['ms_median']:,.0f}", f"{r['state_rows']:,.0f}" if r["state_rows"] else "-",
                         per_row(r, "rows_read"), per_row(r, "rows_written"), per_row(r, "rows_removed"),
                         f"{r['emitted']:,.0f}", profile])
        notes.append(f"- {append['shape']}: update mode sustains {update['rows_per_s'] / append['rows_per_s']:.2f}x "
                     f"the rows/s of append mode.")
    table = markdown_table(
        ["shape", "query", "sustained rows/s (median)", "rounds' rows/s", "vs window()", "ms per micro-batch (median)",
         "state rows", "state rows read per input row", "written per input row",
         "removed per input row", "windows emitted per micro-batch", "CPU samples (JFR)"], rows)
    by_shape = {tuple(r["shape_key"]): r for r in results if r["name"] == "sliding_window" and r["mode"] == "append"}
    small, large = by_shape.get((100_000, 1, 60)), by_shape.get((100_000, 1, 1200))
    if small and large and small["state_bytes"]:
        notes.append(f"- With {large['state_bytes'] / small['state_bytes']:.1f}x the state on disk (the 1200 s "
                     f"window; {large['state_rows'] / small['state_rows']:.1f}x the state rows), a micro-batch "
                     f"of sliding_window takes {large['ms_median'] / small['ms_median']:.2f}x the time and reads "
                     f"{per_row(large, 'rows_read')} state rows per input row against {per_row(small, 'rows_read')}.")
    longest = max(shape.window for shape in args.shapes)
    return (f"{args.advance:.0f} s of event time per micro-batch, watermark delay {args.delay:.0f} s, "
            f"count, sum and max, RocksDB state, {args.partitions} partitions, "
            f"{args.measured} micro-batches measured per query (or a whole cycle of a longer window: "
            f"{measured_batches(args, longest)} for {longest:,.0f} s), each query run {args.rounds} times interleaved "
            f"({time.strftime('%Y-%m-%d')}).\n\n"
            f"{table}\n\n" + "\n".join(notes) + f"\n\n{machine_markdown()}")


if __name__ == "__main__":
    main()
