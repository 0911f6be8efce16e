"""Trailing windows in batch: Spark's own `agg OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN
<W> PRECEDING AND CURRENT ROW)`, planned by the extension as one TrailingWindow operator, against
Spark's Window operator (the extension's planning turned off) on the same rows, in one session
(docs/performance.md).

    python -m benchmarks.trailing [--rows 2000000] [--groups 100] [--rows-per-frame 10,100,1000,10000]

The rows are those of `benchmarks.batch` (about one row per millisecond per group), so a frame of
W milliseconds holds about W rows. Both queries compute count, sum and max over the frame and run
into Spark's `noop` sink; they take turns, --repeat times, and the best time of each counts (Spark's
runs once past --slow-after rows per frame). Both give the same rows (checked by fingerprint).
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Dict, List, Optional

from pyspark.sql import DataFrame, SparkSession

from benchmarks.batch import events
from benchmarks.common import finish, Timeout, machine_markdown, markdown_table, ratio, run, seconds, session, timed

TRAILING_CONF = "spark.sql.slidingWindow.trailingWindows.batch"


def query(spark: SparkSession, size_ms: int) -> DataFrame:
    w = f"(PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '{size_ms}' MILLISECOND PRECEDING AND CURRENT ROW)"
    return spark.sql(f"SELECT k, ts, v, count(*) OVER {w} AS n, sum(v) OVER {w} AS sv, max(v) OVER {w} AS mv FROM events")


def with_trailing(spark: SparkSession, on: bool, action):
    spark.conf.set(TRAILING_CONF, str(on).lower())
    try:
        return action()
    finally:
        spark.conf.unset(TRAILING_CONF)


def fingerprint(df: DataFrame) -> tuple:
    cols = "k, ts, v, n, sv, mv"
    r = df.selectExpr("count(*) AS c", f"sum(pmod(xxhash64({cols}), 2147483647)) AS h1",
                      "avg(n) AS held").collect()[0]
    return (r.c, r.h1), r.held


def main(argv: Optional[List[str]] = None) -> Dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=2_000_000)
    p.add_argument("--groups", type=int, default=100)
    p.add_argument("--rows-per-frame", default="10,100,1000,10000")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--slow-after", type=int, default=100, help="rows per frame past which Spark's query runs once")
    p.add_argument("--timeout", type=float, default=900, help="seconds allowed to a plain-Spark run")
    p.add_argument("--partitions", type=int, default=4)
    p.add_argument("--report", help="write the results as Markdown to this file")
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.rows_per_frame.split(",")]

    spark = session("sliding-window-agg trailing benchmark", conf={
        "spark.sql.shuffle.partitions": str(args.partitions), "spark.sql.adaptive.enabled": "false"})
    events(spark, args.rows, args.groups).createOrReplaceTempView("events")
    for w in sizes[:1]:  # warm-up: JIT and code generation
        with_trailing(spark, True, lambda: run(query(spark, w)))
        with_trailing(spark, False, lambda: run(query(spark, w)))

    results = []
    for w in sizes:
        ours, theirs = [], []
        for i in range(args.repeat):
            spark._jvm.System.gc()
            ours += with_trailing(spark, True, lambda: timed(spark, lambda: run(query(spark, w)), 1))
            if i == 0 or w <= args.slow_after:
                spark._jvm.System.gc()
                try:
                    theirs += with_trailing(spark, False, lambda: timed(spark, lambda: run(query(spark, w)), 1, args.timeout))
                except Timeout:
                    pass
        a, b = min(ours), (min(theirs) if theirs else None)
        (ours_print, held) = with_trailing(spark, True, lambda: fingerprint(query(spark, w)))
        same = None if b is None else ours_print == with_trailing(spark, False, lambda: fingerprint(query(spark, w)))[0]
        results.append({"rows_per_frame": w, "avg_rows": held, "ours": a, "plain": b, "same_rows": same})
        print(f"W={w}: ours {seconds(a)} s ({a / args.rows * 1e9:.0f} ns/row), Spark's Window {seconds(b)} s "
              f"(same rows: {same})", flush=True)
        if same is False:
            print("ERROR: ours and Spark's Window disagree", file=sys.stderr)
    return finish(spark, render(args, results), args.report, results)


def render(args, results) -> str:
    rows = [[f"{r['rows_per_frame']:,}", f"{r['avg_rows']:,.0f}", seconds(r["ours"]),
             f"{r['ours'] / args.rows * 1e9:.0f}",
             seconds(r["plain"]) if r["plain"] is not None else f"> {args.timeout:.0f}",
             ratio(r["plain"] if r["plain"] is not None else args.timeout, r["ours"], r["plain"] is None),
             {True: "yes", False: "**no**", None: "-"}[r["same_rows"]]] for r in results]
    table = markdown_table(["rows per frame", "avg rows in a frame", "TrailingWindow s", "ns per row",
                            "Spark's Window s", "Spark / ours", "same rows"], rows)
    flat = results[-1]["ours"] / results[0]["ours"]
    return (f"{args.rows:,} rows, {args.groups:,} groups, {args.partitions} shuffle partitions, "
            f"count, sum and max over the frame, best of {args.repeat} runs "
            f"({time.strftime('%Y-%m-%d')}).\n\n{table}\n\n"
            f"Our time per row at {results[-1]['rows_per_frame']:,} rows per frame is {flat:.2f}x "
            f"that at {results[0]['rows_per_frame']:,}.\n\n{machine_markdown()}")


if __name__ == "__main__":
    main()
