"""A streaming sliding-window query that computes every aggregate of aggregate_calls.py that runs
on its columns, its input, and its reference: the same aggregates computed by plain Spark (no
windows of ours) over the rows that the brute-force reference.sliding_windows puts in each window.

Also writes the fixtures of tests/fixtures/aggregates/ (checkpoints of that query stopped
half-way, written on an earlier Spark, restarted by test_restart_aggregates.py on each later one):

    python buildtools/spark_env.py 3.5 --run tests/support/aggregates_harness.py
"""
from __future__ import annotations

import json
import math
import os
import random
import shutil
import sys
from typing import Dict, List, Sequence, Tuple

from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F

import checkout
from aggregate_calls import CALLS, NOT_AGGREGATES, SCHEMA
from reference import sliding_windows
from streaming_harness import MTIME_BASE

SEC = 1_000_000
SIZE = 4 * SEC
SIZE_TEXT = "4 seconds"
DELAY = "2 seconds"
BASE = 1_700_000_000 * SEC
FIXTURES = os.path.join(checkout.FIXTURES, "aggregates")
FLUSH_KEY = "__flush"

# Every column but `ts`, which is read as microseconds (`us`).
FILE_SCHEMA = SCHEMA.replace("ts TIMESTAMP", "us BIGINT")

# What the SELECT list shows of an aggregate whose value is not comparable as it is: a sketch by
# what it estimates, a set in a fixed order. Both the query and its reference use it.
SHOWN_AS = {
    "hll_sketch_agg": "hll_sketch_estimate({})",
    "theta_sketch_agg": "theta_sketch_estimate({})",
    "kll_sketch_agg_bigint": "kll_sketch_get_n_bigint({})",
    "kll_sketch_agg_double": "kll_sketch_get_n_double({})",
    "kll_sketch_agg_float": "kll_sketch_get_n_float({})",
    "tuple_sketch_agg_double": "tuple_sketch_estimate_double({})",
    "tuple_sketch_agg_integer": "tuple_sketch_estimate_integer({})",
    "bitmap_construct_agg": "bitmap_count({})",
    "collect_set": "sort_array({})",
    "collect_union": "sort_array({})",
    "histogram_numeric": "size({})",
}
# Aggregates whose result depends on the order partial results are merged in, which differs
# between the operator and Spark's own aggregation even on the same rows: `mode` of tied
# values picks either (its `deterministic` flag is Spark 4 only). They are surveyed by plan.
ORDER_DEPENDENT = {"mode"}


def registry_aggregates(spark: SparkSession) -> List[str]:
    """The aggregate functions of this Spark's function registry."""
    registry = spark._jsparkSession.sessionState().functionRegistry()
    names = registry.listFunction().iterator()
    found = set()
    while names.hasNext():
        f = names.next()
        if registry.lookupFunction(f).get().getGroup() == "agg_funcs":
            found.add(f.funcName())
    return sorted(found - NOT_AGGREGATES)


def running_calls(spark: SparkSession) -> List[str]:
    """The base call of every aggregate of this Spark that runs on the input."""
    return [CALLS[n].base for n in registry_aggregates(spark)
            if CALLS[n].runs and n not in ORDER_DEPENDENT]


def shown(call: str, value: str) -> str:
    """What the query shows of `value`, the result of `call`."""
    return SHOWN_AS.get(call.split("(")[0], "{}").format(value)


def generate(seed: int = 5, files: int = 6) -> List[List[dict]]:
    """Rows of two keys at distinct times (so that first, last, min_by... have one answer), each
    file a micro-batch; a last file far ahead closes every window."""
    rng = random.Random(seed)
    out, clock, ids = [], BASE, iter(rng.sample(range(1000), 200))
    for _ in range(files):
        rows = []
        for _ in range(rng.randint(3, 6)):
            clock += rng.randint(1, 3) * SEC // 2
            v, w = next(ids), next(ids)
            rows.append({"k": rng.choice("ab"), "us": clock, "v": v, "w": w,
                         "d": v / 8, "e": (w % 17) / 4, "s": f"{v:04x}", "t": f"{w:04x}",
                         "b": v % 3 == 0, "c": w % 2 == 0, "i": v % 13, "arr": [v % 5, w % 5]})
        out.append(rows)
    out.append([{"k": FLUSH_KEY, "us": clock + 60 * SEC, "v": 0, "w": 0, "d": 0.0, "e": 0.0, "s": "00",
                 "t": "00", "b": False, "c": False, "i": 0, "arr": []}])
    return out


def write_files(folder: str, files: Sequence[Sequence[dict]], first: int = 0) -> None:
    os.makedirs(folder, exist_ok=True)
    for i, rows in enumerate(files, first):
        path = os.path.join(folder, f"{i:03d}.json")
        with open(path, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        os.utime(path, (MTIME_BASE + i, MTIME_BASE + i))  # the file source orders by time


def read(spark: SparkSession, folder: str) -> DataFrame:
    return (spark.readStream.schema(FILE_SCHEMA).option("maxFilesPerTrigger", 1).json(folder)
            .withColumn("ts", F.timestamp_micros("us")))


def query(calls: Sequence[str]):
    """groupBy(k, sliding_window).agg(every call), the window as microseconds."""
    def build(stream: DataFrame) -> DataFrame:
        return (stream.withWatermark("ts", DELAY)
                .groupBy("k", F.expr(f"sliding_window(ts, '{SIZE_TEXT}')").alias("w"))
                .agg(*[F.expr(c).alias(f"a{i}") for i, c in enumerate(calls)])
                .select("k", F.unix_micros("w.start").alias("s"), F.unix_micros("w.end").alias("e"),
                        *[F.expr(shown(c, f"a{i}")).alias(f"a{i}") for i, c in enumerate(calls)]))

    return build


def reference(spark: SparkSession, files: Sequence[Sequence[dict]], calls: Sequence[str]) -> Dict[tuple, tuple]:
    """{(k, start, end): aggregates} of every window of every key but the flush row's: plain
    Spark's aggregation of the window's rows, fed in time order in one partition."""
    events = [r for f in files for r in f if r["k"] != FLUSH_KEY]
    windows = sliding_windows(events, SIZE, key=lambda r: r["k"], time=lambda r: r["us"])
    rows = [{**r, "wk": k, "ws": s, "we": e}
            for (k, s, e), members in sorted(windows.items()) for r in sorted(members, key=lambda r: r["us"])]
    df = (spark.createDataFrame(rows, FILE_SCHEMA + ", wk STRING, ws BIGINT, we BIGINT").coalesce(1)
          .withColumn("ts", F.timestamp_micros("us")))
    out = (df.groupBy("wk", "ws", "we").agg(*[F.expr(shown(c, c)).alias(f"a{i}") for i, c in enumerate(calls)])
           .collect())
    return {(r.wk, r.ws, r.we): tuple(plain(r[f"a{i}"]) for i in range(len(calls))) for r in out}


def plain(value):
    """A value as JSON holds it: bytes as hex, structs and arrays as lists (floats exact)."""
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex()
    if isinstance(value, Row):
        return [plain(v) for v in value]
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in sorted(value.items())}
    return value


def row_of(saved: dict) -> Row:
    """A window row saved as JSON (a child's output, a fixture's first run)."""
    return Row(**saved)


def saved(row: Row) -> dict:
    return {k: plain(v) for k, v in row.asDict().items()}


def emitted(rows: Sequence[Tuple[int, object]], calls: Sequence[str]) -> Dict[tuple, tuple]:
    """{(k, start, end): aggregates} of the windows a run emitted (the flush row's left out);
    a window emitted twice fails."""
    out: Dict[tuple, tuple] = {}
    for _, r in rows:
        if r.k == FLUSH_KEY:
            continue
        w = (r.k, r.s, r.e)
        assert w not in out, f"window {w} emitted twice"
        out[w] = tuple(plain(r[f"a{i}"]) for i in range(len(calls)))
    return out


def close(a, b) -> bool:
    """Equal, floating-point values to the last digits (docs/semantics.md, "Floating point")."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return a == b


def differences(got: Dict[tuple, tuple], want: Dict[tuple, tuple], calls: Sequence[str]) -> List[str]:
    """What differs, one line per window and aggregate (empty when the runs agree)."""
    out = [f"window {w}: missing" for w in want if w not in got]
    out += [f"window {w}: not a window" for w in got if w not in want]
    for w in set(got) & set(want):
        for i, c in enumerate(calls):
            if not close(got[w][i], want[w][i]):
                out.append(f"window {w}, {c}: {got[w][i]!r}, reference {want[w][i]!r}")
    return out


def write_fixture(spark: SparkSession, work: str) -> str:
    """Runs the first half of the input with this Spark and keeps the checkpoint."""
    from checkpoint_fixtures import keep_checkpoint
    from streaming_harness import HDFS, run_query, state_store

    calls = running_calls(spark)
    files = generate()
    half = len(files) // 2
    version = ".".join(spark.version.split(".")[:2])
    folder = os.path.join(FIXTURES, f"spark-{version}")
    shutil.rmtree(folder, ignore_errors=True)
    source, checkpoint = os.path.join(work, "input"), os.path.join(work, "checkpoint")
    write_files(source, files[:half])
    with state_store(spark, HDFS):
        run = run_query(spark, source, checkpoint, query(calls), "append", read=read)
    write_files(os.path.join(folder, "input"), files)
    keep_checkpoint(checkpoint, source, folder)
    with open(os.path.join(folder, "fixture.json"), "w") as f:
        json.dump({"spark": spark.version, "calls": calls, "files_read": half,
                   "first_run": [[b, saved(r)] for b, r in run.rows]}, f, indent=1)
        f.write("\n")
    return folder


def main() -> None:
    import tempfile

    import sliding_window_agg as swa

    spark = swa.configure(SparkSession.builder.master("local[2]")
                          .config("spark.sql.shuffle.partitions", "2")
                          .config("spark.sql.session.timeZone", "UTC")
                          .config("spark.ui.enabled", "false")).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory() as work:
        print(write_fixture(spark, work))
    spark.stop()


if __name__ == "__main__":
    main()
