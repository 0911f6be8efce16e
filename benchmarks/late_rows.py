"""What a late-rows table costs (docs/performance.md, "Late rows"): the same stream, one row in ten
of it late, through a sliding_window aggregation and through trailing windows, each with and
without `spark.sql.slidingWindow.lateRows.table`, in one session.

    python -m benchmarks.late_rows [--late-every 10] [--groups 1000] [--rows-per-batch 20000]
                                   [--measured 10] [--rounds 3] [--without]

The stream is `benchmarks.streaming`'s (Spark's `rate-micro-batch` source, event time advancing by
--advance seconds per micro-batch, RocksDB state, the `noop` sink), with each --late-every'th row
an hour back: late, since the watermark trails the newest time by --delay seconds. A query's rows
per second are over wall-clock time, from the start of its first measured micro-batch to the start
of its last (`wall_rows_per_s`): a micro-batch's late rows are published once it has committed,
after the time Spark reports as its `triggerExecution`. The queries take turns, --rounds times, each
round starting with the next, after --warmup rounds left out; each one's figures are those of
its median round.
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from typing import Callable, Dict, List, Optional

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa
from benchmarks.common import machine_markdown, markdown_table, publish, session
from benchmarks import streaming
from benchmarks.streaming import ROCKSDB, median_run, release, round_order

LATE_CONF = "spark.sql.slidingWindow.lateRows.table"


def sliding(df: DataFrame) -> DataFrame:
    return df.groupBy("k", swa.sliding_window("ts", "10 seconds")).agg(
        F.count("*").alias("n"), F.sum("v").alias("total"), F.max("v").alias("top"))


def trailing(df: DataFrame) -> DataFrame:
    w = swa.trailing_window("k", "ts", "10 seconds")
    return df.select("k", "ts", "v", F.count("*").over(w).alias("n"), F.sum("v").over(w).alias("total"),
                     F.max("v").over(w).alias("top"))


def measure(spark: SparkSession, args, name: str, build: Callable[[DataFrame], DataFrame], table: bool) -> Dict:
    """`benchmarks.streaming`'s measurement of one query over the stream with late rows, with a
    late-rows table of its own (dropped after) or without; every late row must be written."""
    conf = {LATE_CONF: "bench_late_rows"} if table else None
    result = streaming.measure(spark, args, name, 10, build, conf=conf)
    if table:
        spark.sql("DROP TABLE IF EXISTS bench_late_rows")
        assert result["late_rows_written"] == result["dropped"], (
            f"{name}: {result['late_rows_written']} late rows written per micro-batch, {result['dropped']} dropped")
    return dict(result, rows_per_s=result["wall_rows_per_s"], rows_per_s_trigger=result["rows_per_s"])


def parse(argv: Optional[List[str]]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--late-every", type=int, default=10, help="every Nth row is late")
    p.add_argument("--groups", type=int, default=1000)
    p.add_argument("--rows-per-batch", type=int, default=20_000)
    p.add_argument("--advance", type=float, default=2, help="seconds of event time per micro-batch")
    p.add_argument("--delay", type=float, default=2, help="watermark delay, seconds")
    p.add_argument("--measured", type=int, default=10)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--warmup", type=int, default=1, help="rounds run first and left out")
    p.add_argument("--partitions", type=int, default=4)
    p.add_argument("--timeout", type=float, default=900)
    p.add_argument("--methods", type=int, default=0, help=argparse.SUPPRESS)  # benchmarks.streaming's
    p.add_argument("--without", action="store_true",
                   help="only the queries without a table: the same figures at a commit before late-rows tables")
    p.add_argument("--report", help="write the results as Markdown to this file")
    args = p.parse_args(argv)
    # The stream of benchmarks.streaming: each of a group's rows at its own millisecond, every
    # --late-every'th an hour back.
    args.distinct_times = True
    return args


def main(argv: Optional[List[str]] = None) -> Dict[str, Dict]:
    args = parse(argv)
    warehouse = tempfile.mkdtemp(prefix="swa-bench-warehouse-")
    spark = session("sliding-window-agg late rows benchmark", conf={
        "spark.sql.shuffle.partitions": str(args.partitions),
        "spark.sql.streaming.stateStore.providerClass": ROCKSDB,
        "spark.sql.warehouse.dir": warehouse})
    queries = {f"{kind}, {'with' if table else 'without'} the table": (build, table)
               for kind, build in (("sliding_window", sliding), ("trailing windows", trailing))
               for table in ((False,) if args.without else (False, True))}
    runs: Dict[str, List[Dict]] = {name: [] for name in queries}
    try:
        # A first round warms the JVM up (its figures are left out): the first queries of a
        # session ran at half the speed of the later ones.
        for r in range(-args.warmup, args.rounds):
            for name in round_order(list(queries), max(r, 0)):
                result = measure(spark, args, name, *queries[name])
                print(f"{name}: {result['rows_per_s']:,.0f} rows/s{' (warm-up)' if r < 0 else ''}", flush=True)
                if r >= 0:
                    runs[name].append(result)
                release(spark)
    finally:
        spark.stop()
        shutil.rmtree(warehouse, ignore_errors=True)
    medians = {name: median_run(rs) for name, rs in runs.items()}
    publish(render(args, medians), args.report)
    return medians


def render(args, results: Dict[str, Dict]) -> str:
    if args.without:
        return markdown_table(["query", "rows/s without the table"],
                              [[name, f"{r['rows_per_s']:,.0f}"] for name, r in results.items()])
    rows = []
    for kind in ("sliding_window", "trailing windows"):
        without, with_ = results[f"{kind}, without the table"], results[f"{kind}, with the table"]
        rows.append([kind, f"{without['rows_per_s']:,.0f}", f"{with_['rows_per_s']:,.0f}",
                     f"{without['rows_per_s'] / with_['rows_per_s']:.2f}x", f"{with_['late_rows_written']:,.0f}"])
    table = markdown_table(["query", "rows/s without the table", "rows/s with the table",
                            "cost (without / with)", "late rows written per micro-batch"], rows)
    share = results["sliding_window, with the table"]["dropped"] / args.rows_per_batch
    return (f"{args.groups:,} groups, {args.rows_per_batch:,} rows per micro-batch ({share:.0%} of them late), "
            f"{args.advance:g} s of event time per micro-batch, watermark delay {args.delay:g} s, frames and "
            f"windows of 10 s, RocksDB, {args.partitions} shuffle partitions, {args.measured} micro-batches "
            f"measured, median of {args.rounds} round(s) after {args.warmup} left out ({time.strftime('%Y-%m-%d')}).\n\n{table}\n\n"
            f"{machine_markdown()}")


if __name__ == "__main__":
    main()
