"""Streaming sliding windows with RocksDB state: sustained throughput, and the cost of a
micro-batch as the state grows at a constant input rate (docs/performance.md).

    python -m benchmarks.streaming [--groups 100000] [--rows-per-batch 100000] [--measured 10]

The input is Spark's `rate-micro-batch` source: the same number of rows in every micro-batch,
event time advancing by `--advance` seconds per micro-batch (each row's time spread over that
span), keys `value % groups`. Each configuration runs micro-batches as fast as it can (trigger
every 0 seconds, `noop` sink, append mode, watermark delay `--delay`) until its windows are full
(event time past window + delay), then `--measured` more, over which it is measured:

- sustained rows/s: input rows / time of those micro-batches;
- ms per micro-batch, and what the operator reports: state rows, state rows read, windows emitted.

Configurations, on the same stream:
(1) sliding_window of `--window` (1 minute);
(2) sliding_window of `--state-factor` x `--window` (20): the same input rate, and at least ten
    times the state (a group's rows span window + delay + one micro-batch, and a group also
    keeps a few rows of its own whatever the window);
(3) (1) with `spark.sql.streaming.stateStore.rocksdb.trackTotalNumberOfRows` off: Spark's RocksDB
    provider then stops reading every key before it writes or deletes it (to count the keys),
    and reports no `numRowsTotal`;
(4) for reference, Spark's own tumbling `window(ts, --window)` aggregation with RocksDB state.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from typing import Callable, Dict, List, Optional

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa
from benchmarks.common import machine_markdown, markdown_table, publish, session

START_MS = 1_704_067_200_000
ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
TRACK_ROWS = "spark.sql.streaming.stateStore.rocksdb.trackTotalNumberOfRows"


def source(spark: SparkSession, args) -> DataFrame:
    advance_ms = int(args.advance * 1000)
    return (spark.readStream.format("rate-micro-batch")
            .option("rowsPerBatch", args.rows_per_batch)
            .option("numPartitions", args.partitions)
            .option("startTimestamp", START_MS)
            .option("advanceMillisPerBatch", advance_ms)
            .load()
            .selectExpr(f"value % {args.groups} AS k",
                        f"timestamp_millis(unix_millis(timestamp) + pmod(value * 7919, {advance_ms})) AS ts",
                        "value AS v")
            .withWatermark("ts", f"{args.delay} seconds"))


def measure(spark: SparkSession, args, name: str, window_seconds: float,
            build: Callable[[DataFrame], DataFrame], conf: Optional[Dict[str, str]] = None) -> Dict:
    """Runs one configuration; `conf` is set on the session while it runs (a new query, with a
    new checkpoint, gets new state store providers, which read it)."""
    # Full windows: the watermark is past window + delay from the first row on.
    fill = int((window_seconds + args.delay) / args.advance) + 2
    checkpoint = tempfile.mkdtemp(prefix="swa-bench-")
    for k, v in (conf or {}).items():
        spark.conf.set(k, v)
    query = (build(source(spark, args)).writeStream.format("noop").outputMode("append")
             .option("checkpointLocation", checkpoint).trigger(processingTime="0 seconds").start())
    try:
        deadline = time.time() + args.timeout
        while True:
            progress = [p for p in reports(query) if p["numInputRows"] > 0]
            if len(progress) >= fill + args.measured:
                break
            if query.exception() is not None:
                raise RuntimeError(query.exception())
            if time.time() > deadline:
                raise RuntimeError(f"{name}: {len(progress)} micro-batches in {args.timeout} s")
            time.sleep(0.5)
    finally:
        query.stop()
        shutil.rmtree(checkpoint, ignore_errors=True)
        for k in conf or {}:
            spark.conf.unset(k)
    steady = sorted((p for p in reports(query) if p["numInputRows"] > 0),
                    key=lambda p: p["batchId"])[fill:fill + args.measured]
    ms = [p["durationMs"]["triggerExecution"] for p in steady]
    ops = [p["stateOperators"][0] for p in steady]
    rows = sum(p["numInputRows"] for p in steady)
    return {
        "name": name,
        "batches": len(steady),
        "rows_per_s": rows / (sum(ms) / 1000),
        "ms_median": statistics.median(ms),
        "rows_in": rows / len(steady),
        "state_rows": statistics.mean(o["numRowsTotal"] for o in ops),
        "rows_read": statistics.mean(o.get("customMetrics", {}).get("numStateRowsRead", 0) for o in ops),
        "emitted": statistics.mean(o["numRowsUpdated"] if "numWindowsEmitted" not in o.get("customMetrics", {})
                                   else o["customMetrics"]["numWindowsEmitted"] for o in ops),
    }


def reports(query) -> List[Dict]:
    """The query's recent progress reports as dicts (PySpark 3.5 gives dicts, 4 objects)."""
    return [p if isinstance(p, dict) else json.loads(p.json) for p in query.recentProgress]


def parse(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--groups", type=int, default=100_000)
    p.add_argument("--rows-per-batch", type=int, default=100_000)
    p.add_argument("--advance", type=float, default=30, help="seconds of event time per micro-batch")
    p.add_argument("--window", type=float, default=60, help="window size, seconds")
    p.add_argument("--delay", type=float, default=10, help="watermark delay, seconds")
    p.add_argument("--measured", type=int, default=10,
                   help="micro-batches measured, once the windows are full")
    p.add_argument("--state-factor", type=int, default=20,
                   help="window of configuration (2), in windows of configuration (1)")
    p.add_argument("--partitions", type=int, default=4)
    p.add_argument("--timeout", type=float, default=1800, help="seconds allowed per configuration")
    p.add_argument("--report", help="write the results as Markdown to this file")
    return p.parse_args(argv)


def main(argv: Optional[List[str]] = None) -> List[Dict]:
    args = parse(argv)
    spark = session("sliding-window-agg streaming benchmark", conf={
        "spark.sql.shuffle.partitions": str(args.partitions),
        "spark.sql.streaming.stateStore.providerClass": ROCKSDB,
    })
    w = args.window
    big = args.state_factor * w

    def sliding(size: float) -> Callable[[DataFrame], DataFrame]:
        return lambda df: (df.groupBy("k", swa.sliding_window("ts", f"{int(size)} seconds"))
                           .agg(F.count("*").alias("n"), F.sum("v").alias("total"), F.max("v").alias("top")))

    results = [
        measure(spark, args, f"sliding_window {w:.0f} s", w, sliding(w)),
        measure(spark, args, f"sliding_window {big:.0f} s ({args.state_factor}x the window)", big, sliding(big)),
        measure(spark, args, f"sliding_window {w:.0f} s, RocksDB not counting its keys", w, sliding(w),
                conf={TRACK_ROWS: "false"}),
        measure(spark, args, f"Spark's window() {w:.0f} s, tumbling", w,
                lambda df: (df.groupBy("k", F.window("ts", f"{int(w)} seconds"))
                            .agg(F.count("*").alias("n"), F.sum("v").alias("total"), F.max("v").alias("top")))),
    ]
    for r in results:
        print(r, flush=True)
    report = render(args, results)
    publish(report, args.report)
    spark.stop()
    return results


def render(args, results: List[Dict]) -> str:
    table = markdown_table(
        ["query", "micro-batches measured", "sustained rows/s", "ms per micro-batch (median)",
         "state rows", "state rows read per micro-batch", "windows emitted per micro-batch"],
        [[r["name"], r["batches"], f"{r['rows_per_s']:,.0f}", f"{r['ms_median']:,.0f}",
          f"{r['state_rows']:,.0f}" if r["state_rows"] else "-",
          f"{r['rows_read']:,.0f}" if r["rows_read"] else "-",
          f"{r['emitted']:,.0f}"] for r in results])
    small, large, uncounted = results[0], results[1], results[2]
    return (f"{args.groups:,} groups, {args.rows_per_batch:,} rows per micro-batch, "
            f"{args.advance:.0f} s of event time per micro-batch, watermark delay {args.delay:.0f} s, "
            f"RocksDB state, {args.partitions} partitions ({time.strftime('%Y-%m-%d')}).\n\n{table}\n\n"
            f"With {large['state_rows'] / small['state_rows']:.1f}x the state, a micro-batch takes "
            f"{large['ms_median'] / small['ms_median']:.2f}x the time and reads "
            f"{large['rows_read'] / small['rows_read']:.2f}x the state rows. With RocksDB not counting "
            f"its keys, sustained rows/s are {uncounted['rows_per_s'] / small['rows_per_s']:.2f}x "
            f"those of the same query counting them.\n\n{machine_markdown()}")


if __name__ == "__main__":
    main()
