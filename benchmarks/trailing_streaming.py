"""Trailing windows on a stream: one query with three frame sizes (count, sum and max over each)
against Spark's own tumbling window() of the largest size with the same aggregates, on the same
stream, in one session (docs/performance.md, "Trailing windows on a stream").

    python -m benchmarks.trailing_streaming [--groups 1000] [--rows-per-batch 20000] [--sizes 10,30,60]

The stream and the measurement are those of `benchmarks.streaming` (Spark's `rate-micro-batch`
source, event time advancing by --advance seconds per micro-batch, RocksDB state, the `noop`
sink, micro-batches measured once the largest window is full), with each of a group's rows at its
own millisecond: sustained input rows per second
and milliseconds per micro-batch, with what each operator reports of its state. The two queries
take turns, --rounds times; each one's figures are those of its median round.
"""
from __future__ import annotations

import argparse
import statistics
import time
from typing import Dict, List, Optional

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

import sliding_window_agg as swa
from benchmarks.common import machine_markdown, markdown_table, publish, session
from benchmarks.streaming import ROCKSDB, measure, release


def trailing(sizes: List[int]):
    def build(df: DataFrame) -> DataFrame:
        columns = []
        for s in sizes:
            w = swa.trailing_window("k", "ts", f"{s} seconds")
            columns += [F.count("*").over(w).alias(f"n_{s}"), F.sum("v").over(w).alias(f"total_{s}"),
                        F.max("v").over(w).alias(f"top_{s}")]
        return df.select("k", "ts", "v", *columns)
    return build


def tumbling(size: int):
    def build(df: DataFrame) -> DataFrame:
        return df.groupBy("k", F.window("ts", f"{size} seconds")).agg(
            F.count("*").alias("n"), F.sum("v").alias("total"), F.max("v").alias("top"))
    return build


def parse(argv: Optional[List[str]]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--groups", type=int, default=1000)
    p.add_argument("--rows-per-batch", type=int, default=20_000)
    p.add_argument("--sizes", default="10,30,60", help="frame sizes in seconds; window() takes the largest")
    p.add_argument("--advance", type=float, default=2, help="seconds of event time per micro-batch")
    p.add_argument("--delay", type=float, default=2, help="watermark delay, seconds")
    p.add_argument("--measured", type=int, default=10)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--partitions", type=int, default=4)
    p.add_argument("--timeout", type=float, default=1800)
    p.add_argument("--report", help="write the results as Markdown to this file")
    args = p.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.methods = 0
    # Each of a group's rows at its own millisecond, as events of one key mostly are: a frame's
    # work follows its rows, not a few times shared by many rows.
    args.distinct_times = True
    return args


def main(argv: Optional[List[str]] = None) -> List[Dict]:
    args = parse(argv)
    spark = session("sliding-window-agg trailing streaming benchmark", conf={
        "spark.sql.shuffle.partitions": str(args.partitions),
        "spark.sql.streaming.stateStore.providerClass": ROCKSDB})
    largest = max(args.sizes)
    queries = {"trailing": trailing(args.sizes), "window": tumbling(largest)}
    runs: Dict[str, List[Dict]] = {name: [] for name in queries}
    for r in range(args.rounds):
        for name in (list(queries) if r % 2 == 0 else list(queries)[::-1]):
            result = measure(spark, args, name, largest, queries[name])
            print(f"{name}: {result['rows_per_s']:,.0f} rows/s, {result['ms_median']:.0f} ms per micro-batch", flush=True)
            runs[name].append(result)
            release(spark)
    spark.stop()
    medians = {name: sorted(rs, key=lambda x: x["rows_per_s"])[len(rs) // 2] for name, rs in runs.items()}
    publish(render(args, medians), args.report)
    return list(medians.values())


def render(args, results: Dict[str, Dict]) -> str:
    t, w = results["trailing"], results["window"]
    rows = [[f"trailing windows {', '.join(f'{s} s' for s in args.sizes)} (one operator)",
             f"{t['rows_per_s']:,.0f}", f"{t['ms_median']:,.0f}", f"{t['updates_ms']:,.0f}", f"{t['commit_ms']:,.0f}",
             f"{t['state_rows']:,.0f}", f"{t['rows_read']:,.0f}"],
            [f"Spark's window() of {max(args.sizes)} s", f"{w['rows_per_s']:,.0f}", f"{w['ms_median']:,.0f}",
             f"{w['updates_ms']:,.0f}", f"{w['commit_ms']:,.0f}", f"{w['state_rows']:,.0f}", "-"]]
    table = markdown_table(["query", "rows/s", "ms per micro-batch (median)", "state updates ms", "state commit ms",
                            "state rows", "state rows read"], rows)
    per_frame = args.rows_per_batch / args.groups / args.advance
    return (f"{args.groups:,} groups, {args.rows_per_batch:,} rows per micro-batch, {args.advance:g} s of event "
            f"time per micro-batch (about {per_frame * max(args.sizes):,.0f} rows in a group's largest frame), "
            f"watermark delay {args.delay:g} s, RocksDB, {args.partitions} shuffle partitions, median of "
            f"{args.rounds} round(s) ({time.strftime('%Y-%m-%d')}).\n\n{table}\n\n"
            f"State updates and commit: the state operators' `allUpdatesTimeMs` and `commitTimeMs` per "
            f"micro-batch (median), summed over their {args.partitions} tasks.\n\n"
            f"Trailing windows / window(): {t['rows_per_s'] / w['rows_per_s']:.2f}x the rows per second.\n\n"
            f"{machine_markdown()}")


if __name__ == "__main__":
    main()
