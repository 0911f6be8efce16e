"""Trailing windows on a stream: one query with three frame sizes (count, sum and max over each),
one with the first frame alone, and Spark's own tumbling window() of the largest size with the
same aggregates, on the same stream, in one session (docs/performance.md, "Trailing windows on a
stream").

    python -m benchmarks.trailing_streaming [--groups 1000] [--rows-per-batch 20000] [--sizes 10,30,60]
                                            [--profile [--methods 40]]

The stream and the measurement are those of `benchmarks.streaming` (Spark's `rate-micro-batch`
source, event time advancing by --advance seconds per micro-batch, RocksDB state, the `noop`
sink, micro-batches measured once the largest window is full), with each of a group's rows at its
own millisecond: sustained input rows per second and milliseconds per micro-batch, with what each
operator reports of its state. The queries take turns, --rounds times, each round starting with
the next; each one's figures are those of its median round. With `--profile`, each query then
runs once more with a JFR recording (`benchmarks.streaming`'s, out of the figures): the shares of
its CPU samples by part (this extension, Spark's state store, RocksDB, shuffle and sort,
generated code, ...), and with `--methods N` the N methods most sampled.
"""
from __future__ import annotations

import argparse
import time
from typing import Dict, List, Optional

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

import sliding_window_agg as swa
from benchmarks.common import machine_markdown, markdown_table, publish, session
from benchmarks.streaming import ROCKSDB, measure, median_run, release, round_order


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
    p.add_argument("--profile", action="store_true", help="then a JFR profile of each query, from one more run")
    p.add_argument("--methods", type=int, default=0,
                   help="with --profile, print the N methods most sampled, by self and total samples")
    p.add_argument("--report", help="write the results as Markdown to this file")
    args = p.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",")]
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
    # Every frame in one operator, the first frame alone (with several), and window().
    queries = {"trailing": trailing(args.sizes),
               **({"one frame": trailing(args.sizes[:1])} if len(args.sizes) > 1 else {}),
               "window": tumbling(largest)}
    runs: Dict[str, List[Dict]] = {name: [] for name in queries}
    for r in range(args.rounds):
        for name in round_order(list(queries), r):
            result = measure(spark, args, name, largest, queries[name])
            print(f"{name}: {result['rows_per_s']:,.0f} rows/s, {result['ms_median']:.0f} ms per micro-batch", flush=True)
            runs[name].append(result)
            release(spark)
    medians = {name: median_run(rs) for name, rs in runs.items()}
    if args.profile:  # after every measurement: a JVM that has recorded stays slower
        for name in queries:
            medians[name]["profile"] = measure(spark, args, name, largest, queries[name], profile=True)["profile"]
            release(spark)
    spark.stop()
    publish(render(args, medians), args.report)
    return list(medians.values())


def render(args, results: Dict[str, Dict]) -> str:
    t, w = results["trailing"], results["window"]

    def row(title: str, r: Dict, read: bool = True) -> List[str]:
        return [title, f"{r['rows_per_s']:,.0f}", f"{r['ms_median']:,.0f}", f"{r['updates_ms']:,.0f}",
                f"{r['commit_ms']:,.0f}", f"{r['state_rows']:,.0f}", f"{r['rows_read']:,.0f}" if read else "-"]

    measured = [(row(f"trailing windows {', '.join(f'{s} s' for s in args.sizes)} (one operator)", t), t)]
    if "one frame" in results:
        measured.append((row(f"trailing windows {args.sizes[0]} s", results["one frame"]), results["one frame"]))
    measured.append((row(f"Spark's window() of {max(args.sizes)} s", w, read=False), w))
    headers = ["query", "rows/s", "ms per micro-batch (median)", "state updates ms", "state commit ms",
               "state rows", "state rows read"]
    if args.profile:
        headers.append("CPU samples (JFR)")
        for cells, r in measured:
            cells.append(", ".join(f"{part} {share:.0%}" for part, share in list(r["profile"].items())[:5]))
    table = markdown_table(headers, [cells for cells, _ in measured])
    ratios = f"Trailing windows / window(): {t['rows_per_s'] / w['rows_per_s']:.2f}x the rows per second"
    if "one frame" in results:
        ratios += f" ({results['one frame']['rows_per_s'] / w['rows_per_s']:.2f}x with one frame)"
    per_frame = args.rows_per_batch / args.groups / args.advance
    return (f"{args.groups:,} groups, {args.rows_per_batch:,} rows per micro-batch, {args.advance:g} s of event "
            f"time per micro-batch (about {per_frame * max(args.sizes):,.0f} rows in a group's largest frame), "
            f"watermark delay {args.delay:g} s, RocksDB, {args.partitions} shuffle partitions, median of "
            f"{args.rounds} round(s) ({time.strftime('%Y-%m-%d')}).\n\n{table}\n\n"
            f"State updates and commit: the state operators' `allUpdatesTimeMs` and `commitTimeMs` per "
            f"micro-batch (median), summed over their {args.partitions} tasks.\n\n"
            f"{ratios}.\n\n"
            f"{machine_markdown()}")


if __name__ == "__main__":
    main()
