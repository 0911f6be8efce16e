"""Batch sliding windows against the best plain-Spark queries for the same windows, on the same
data, in one session (docs/performance.md).

    python -m benchmarks.batch [--rows 2000000] [--groups 100] [--rows-per-window 10,100,1000,10000]

For each number of rows per window W, on `--rows` rows in `--groups` groups (about one row per
millisecond per group, some at equal times, so a window of W milliseconds holds about W rows):

(a) ours: `GROUP BY k, sliding_window(ts, 'W milliseconds')` with count, sum, max and max_by;
(b) plain Spark's best for the same rows: the left windows `[t - W, t]` and the right windows
    `[t + 1us, t + 1us + W]` as two OVER (PARTITION BY k ORDER BY t RANGE ...) frames of one
    window specification (one shuffle, one sort), the empty right windows dropped, the duplicates
    removed with DISTINCT; checked to give the same rows as (a);
(c) the workaround KIP-450 describes: a hopping `window(ts, W + 1 ms, 1 ms)` (a slide of the data's
    time unit), which expands every row into W + 1 windows: run while W <= --hopping-max;
(d) the floor: the same rows shuffled by k and sorted by (k, ts), as (a) needs them, and nothing
    else; no windowed aggregation can beat it.

Every query runs to completion into Spark's `noop` sink. (a) and (d) take turns, --repeat times,
each run after a full garbage collection, and the best time of each counts; (b) and (c) run
once. A plain-Spark run longer than --timeout seconds is cancelled and reported as "> timeout".
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Dict, List, Optional

from pyspark.sql import DataFrame, SparkSession

from benchmarks.common import (finish, Timeout, machine_markdown, markdown_table, ratio, run,
                               seconds, session, timed)

BASE_MS = 1_704_067_200_000  # 2024-01-01T00:00:00Z
AGGREGATES = "count(*) AS n, sum(v) AS sv, max(v) AS mv, max_by(v, ts) AS mb"


def events(spark: SparkSession, rows: int, groups: int) -> DataFrame:
    """`rows` rows in `groups` groups: group k's i-th row is at i + {0, 1, 2} ms (about one row
    per millisecond, some at equal times); v depends on (k, time) only, so that max_by is
    deterministic whatever the order of rows at equal times. Cached: every query reads the same
    rows from memory."""
    df = (spark.range(rows)
          .selectExpr(f"id % {groups} AS k", f"(id div {groups}) + pmod(hash(id, 1), 3) AS tm")
          .selectExpr("k", f"timestamp_millis({BASE_MS} + tm) AS ts", "pmod(hash(k, tm), 1000) AS v")
          .cache())
    df.count()
    return df


def ours(spark: SparkSession, size_ms: int) -> DataFrame:
    return spark.sql(f"""
        SELECT k, sliding_window(ts, '{size_ms} milliseconds') AS w, {AGGREGATES}
        FROM events GROUP BY k, sliding_window(ts, '{size_ms} milliseconds')""")


def plain(spark: SparkSession, size_ms: int) -> DataFrame:
    s = size_ms * 1000  # microseconds, the timestamp's unit
    frames = ", ".join(f"{f}(v) OVER {w} AS {w}{name}" for w in ("l", "r")
                       for f, name in (("count", "n"), ("sum", "sv"), ("max", "mv")))
    max_by = ", ".join(f"max_by(v, t) OVER {w} AS {w}mb" for w in ("l", "r"))
    return spark.sql(f"""
        WITH x AS (SELECT k, unix_micros(ts) AS t, v FROM events),
        f AS (
          SELECT k, t, {frames}, {max_by} FROM x
          WINDOW l AS (PARTITION BY k ORDER BY t RANGE BETWEEN {s} PRECEDING AND CURRENT ROW),
                 r AS (PARTITION BY k ORDER BY t RANGE BETWEEN 1 FOLLOWING AND {s + 1} FOLLOWING))
        SELECT DISTINCT k, s, e, n, sv, mv, mb FROM (
          SELECT k, inline(array(
            named_struct('s', t - {s}, 'e', t, 'n', ln, 'sv', lsv, 'mv', lmv, 'mb', lmb),
            named_struct('s', t + 1, 'e', t + 1 + {s}, 'n', rn, 'sv', rsv, 'mv', rmv, 'mb', rmb)))
          FROM f)
        WHERE n > 0""")


def hopping(spark: SparkSession, size_ms: int) -> DataFrame:
    # Inclusive [a, a + W] on millisecond data is the half-open [a, a + W + 1 ms).
    return spark.sql(f"""
        SELECT k, window(ts, '{size_ms + 1} milliseconds', '1 millisecond') AS w, {AGGREGATES}
        FROM events GROUP BY k, window(ts, '{size_ms + 1} milliseconds', '1 millisecond')""")


def floor(spark: SparkSession) -> DataFrame:
    return spark.table("events").repartition("k").sortWithinPartitions("k", "ts")


def fingerprint(df: DataFrame) -> tuple:
    """Row count and two order-independent sums of row hashes: equal for equal sets of rows."""
    cols = "k, s, e, n, sv, mv, mb"
    r = df.selectExpr("count(*) AS c", f"sum(pmod(xxhash64({cols}), 2147483647)) AS h1",
                      f"sum(pmod(hash({cols}), 2147483647)) AS h2").collect()[0]
    return (r.c, r.h1, r.h2)


def ours_as_plain(df: DataFrame) -> DataFrame:
    return df.selectExpr("k", "unix_micros(w.start) AS s", "unix_micros(w.end) AS e",
                         "n", "sv", "mv", "mb")


def interleaved(spark: SparkSession, queries, repeat: int) -> List[float]:
    """The best time of each query, the queries taking turns, each run after a full GC: the
    same conditions for each, whatever the machine's drift."""
    times = [[] for _ in queries]
    for _ in range(repeat):
        for i, df_of in enumerate(queries):
            spark._jvm.System.gc()
            times[i] += timed(spark, lambda: run(df_of()), 1)
    return [min(t) for t in times]


def best(spark, df_of, repeat, timeout=None) -> Optional[float]:
    try:
        return min(timed(spark, lambda: run(df_of()), repeat, timeout))
    except Timeout:
        return None


def main(argv: Optional[List[str]] = None) -> Dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=2_000_000)
    p.add_argument("--groups", type=int, default=100)
    p.add_argument("--rows-per-window", default="10,100,1000,10000")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--timeout", type=float, default=600, help="seconds allowed to a plain-Spark run")
    p.add_argument("--hopping-max", type=int, default=100,
                   help="largest rows per window for the hopping window() workaround")
    p.add_argument("--partitions", type=int, default=4)
    p.add_argument("--report", help="write the results as Markdown to this file")
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.rows_per_window.split(",")]

    spark = session("sliding-window-agg batch benchmark", conf={
        "spark.sql.shuffle.partitions": str(args.partitions),
        # The same shuffle for every query: no adaptive coalescing of partitions.
        "spark.sql.adaptive.enabled": "false",
    })
    events(spark, args.rows, args.groups).createOrReplaceTempView("events")
    for _ in range(2):  # warm-up: JIT and code generation, for every size measured
        for w in sizes:
            run(ours(spark, w))
        run(floor(spark))

    results = []
    for w in sizes:
        d, a = interleaved(spark, [lambda: floor(spark), lambda: ours(spark, w)], args.repeat)
        windows, held = ours(spark, w).selectExpr("count(*)", "avg(n)").collect()[0]
        b = best(spark, lambda: plain(spark, w), 1, args.timeout)
        same = None if b is None else fingerprint(ours_as_plain(ours(spark, w))) == fingerprint(plain(spark, w))
        c = best(spark, lambda: hopping(spark, w), 1, args.timeout) if w <= args.hopping_max else None
        row = {"rows_per_window": w, "windows": windows, "avg_rows": held, "ours": a, "plain": b,
               "same_rows": same, "hopping": c, "floor": d}
        results.append(row)
        print(f"W={w}: ours {seconds(a)} s ({a / args.rows * 1e9:.0f} ns/row), plain {seconds(b)} s "
              f"(same rows: {same}), hopping {seconds(c)} s, floor {seconds(d)} s", flush=True)
        if same is False:
            print("ERROR: ours and plain Spark disagree", file=sys.stderr)
    return finish(spark, render(args, results), args.report, results)


def render(args, results) -> str:
    first, last = results[0], results[-1]
    rows = []
    for r in results:
        rows.append([
            f"{r['rows_per_window']:,}", f"{r['avg_rows']:,.0f}", f"{r['windows']:,}",
            seconds(r["ours"]), f"{r['ours'] / args.rows * 1e9:.0f}",
            seconds(r["plain"]) if r["plain"] is not None else f"> {args.timeout:.0f}",
            ratio(r["plain"] if r["plain"] is not None else args.timeout, r["ours"], r["plain"] is None),
            {True: "yes", False: "**no**", None: "-"}[r["same_rows"]],
            seconds(r["hopping"]) if r["rows_per_window"] <= args.hopping_max else "-",
            ratio(r["hopping"], r["ours"]),
            seconds(r["floor"]), ratio(r["ours"], r["floor"]),
        ])
    table = markdown_table(
        ["rows per window", "avg rows in a window", "windows", "(a) ours s", "ours ns per row",
         "(b) OVER RANGE s", "(b) / (a)", "same rows", "(c) hopping s", "(c) / (a)",
         "(d) sort s", "(a) / (d)"], rows)
    flat = last["ours"] / first["ours"]
    return (f"{args.rows:,} rows, {args.groups:,} groups, {args.partitions} shuffle partitions, "
            f"best of {args.repeat} runs ({time.strftime('%Y-%m-%d')}).\n\n{table}\n\n"
            f"Our time per row at {last['rows_per_window']:,} rows per window is {flat:.2f}x "
            f"that at {first['rows_per_window']:,}.\n\n{machine_markdown()}")


if __name__ == "__main__":
    main()
