"""Trailing windows over CSV files read one per micro-batch (the workload of the comparison with
Apache Flink, docs/performance.md, "Against Apache Flink"), beside what Spark itself takes on the
same stream: the rows shuffled by the key into the same sink, with as many columns, without any
operator (Spark's floor for a stateful query of the key), and Spark's tumbling window() of the
largest size.

    python -m benchmarks.trailing_csv DATA [--sizes 10] [--rounds 3] [--delay 5] [--cores 2]

DATA holds CSV files of `k,ms,v` (key, epoch milliseconds, value), as the Flink anchor's
`gen_data.py` writes them (its `spark/` folder). Each query reads them with `maxFilesPerTrigger`
1, `ts = timestamp_millis(ms)` with a watermark `--delay` seconds behind, writes a CSV file sink
in the Append mode, runs with the `availableNow` trigger on `local[--cores]` with as many shuffle
partitions and the default state store, in a JVM of its own (as the anchor runs each engine):
rows/s are the input rows over the query's seconds from its start to its end, warm-up included.
The queries take turns, each round starting with the next; each one's figure is its median round.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional

from benchmarks.common import machine_markdown, markdown_table, publish, session
from benchmarks.streaming import round_order

SCHEMA = "k INT, ms BIGINT, v BIGINT"


def queries(sizes: List[int], cores: int) -> Dict[str, str]:
    """The queries over the view `events`, by name; sizes in minutes."""
    columns = ", ".join(f"count(*) OVER w{m} AS n_{m}, sum(v) OVER w{m} AS s_{m}, max(v) OVER w{m} AS mx_{m}"
                        for m in sizes)
    windows = ", ".join(f"w{m} AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '{m}' MINUTE PRECEDING "
                        f"AND CURRENT ROW)" for m in sizes)
    copies = ", ".join(f"ms AS n_{m}, v AS s_{m}, v AS mx_{m}" for m in sizes)
    largest = max(sizes)
    return {
        "trailing": f"SELECT k, ms, v, {columns} FROM events WINDOW {windows}",
        # The same columns as the trailing query's, without computing any.
        "shuffle only": f"SELECT /*+ REPARTITION({cores}, k) */ k, ms, v, {copies} FROM events",
        "window()": f"SELECT k, window.start AS start, count(*) AS n, sum(v) AS s, max(v) AS mx FROM events "
                    f"GROUP BY k, window(ts, '{largest} minutes')",
    }


def run_one(args, name: str) -> Dict:
    """Query `name` in this process (the child): its seconds, micro-batches and input rows."""
    work = tempfile.mkdtemp(prefix="swa-csv-")
    try:
        spark = session("trailing_csv", f"local[{args.cores}]",
                        conf={"spark.sql.shuffle.partitions": str(args.cores)})
        (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).csv(os.path.abspath(args.data))
         .selectExpr("*", "timestamp_millis(ms) AS ts").withWatermark("ts", f"{args.delay} seconds")
         .createOrReplaceTempView("events"))
        q = spark.sql(queries(args.sizes, args.cores)[name])
        start = time.time()
        query = (q.writeStream.format("csv").outputMode("append").option("path", os.path.join(work, "out"))
                 .option("checkpointLocation", os.path.join(work, "checkpoint")).trigger(availableNow=True).start())
        query.awaitTermination()
        seconds = time.time() - start
        progress = [json.loads(p.json) for p in query.recentProgress]
        rows = sum(p["numInputRows"] for p in progress)
        query.stop()
        return {"query": name, "seconds": seconds, "rows": rows, "rows_per_s": rows / seconds,
                "batches": len(progress), **micro_batches(progress),
                **jvm_cpu(spark._jvm.java.lang.ProcessHandle.current().pid())}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def micro_batches(progress: List[Dict]) -> Dict:
    """Where the micro-batches' time went, from their `durationMs`: the first two's, and the
    median of the steady ones (after the first three, before the last) by phase."""
    steady = progress[3:-1] or progress
    phases = ("triggerExecution", "addBatch", "queryPlanning", "latestOffset", "walCommit", "commitOffsets")
    return {"first_ms": [p["durationMs"].get("triggerExecution", 0) for p in progress[:2]],
            "steady_ms": {k: statistics.median(p["durationMs"].get(k, 0) for p in steady) for k in phases}}


def jvm_cpu(pid: int) -> Dict:
    """The JVM's CPU seconds so far, and its JIT compiler threads' (Linux: /proc), or nothing."""
    total = compilers = 0.0
    try:
        tick = os.sysconf("SC_CLK_TCK")
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/comm") as f:
                name = f.read()
            with open(f"/proc/{pid}/task/{task}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            cpu = (int(fields[11]) + int(fields[12])) / tick  # utime, stime
            total += cpu
            compilers += cpu if "CompilerThre" in name else 0.0
    except OSError:
        return {}
    return {"jvm_cpu_s": total, "jit_cpu_s": compilers}


def parse(argv: Optional[List[str]]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data", help="a folder of CSV files k,ms,v")
    p.add_argument("--sizes", default="10", help="frame sizes in minutes, comma-separated; window() takes the largest")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--delay", type=int, default=5, help="watermark delay, seconds")
    p.add_argument("--cores", type=int, default=2)
    p.add_argument("--report", help="write the results as Markdown to this file")
    p.add_argument("--one", help=argparse.SUPPRESS)  # the child: run these queries (comma-separated) once
    args = p.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",")]
    return args


def main(argv: Optional[List[str]] = None) -> Dict[str, Dict]:
    args = parse(argv)
    if args.one:
        for name in args.one.split(","):
            print("RESULT " + json.dumps(run_one(args, name)), flush=True)
        return {}
    names = list(queries(args.sizes, args.cores))
    runs: Dict[str, List[Dict]] = {name: [] for name in names}
    for r in range(args.rounds):
        for name in round_order(names, r):
            child = [sys.executable, "-m", "benchmarks.trailing_csv", args.data, "--sizes",
                     ",".join(map(str, args.sizes)), "--delay", str(args.delay), "--cores", str(args.cores),
                     "--one", name]
            out = subprocess.run(child, check=True, capture_output=True, text=True).stdout
            result = json.loads(next(line for line in out.splitlines() if line.startswith("RESULT "))[7:])
            print(f"{name}: {result['rows_per_s']:,.0f} rows/s ({result['seconds']:.1f} s, "
                  f"{result['batches']} micro-batches)", flush=True)
            runs[name].append(result)
    medians = {name: {"rows_per_s": statistics.median(r["rows_per_s"] for r in rs),
                      "low": min(r["rows_per_s"] for r in rs), "high": max(r["rows_per_s"] for r in rs),
                      "rows": rs[0]["rows"], "batches": rs[0]["batches"],
                      # the phases of its median round
                      **{k: v for k, v in sorted(rs, key=lambda r: r["rows_per_s"])[(len(rs) - 1) // 2].items()
                         if k in ("first_ms", "steady_ms", "jvm_cpu_s", "jit_cpu_s")}}
               for name, rs in runs.items()}
    publish(render(args, medians), args.report)
    return medians


def render(args, results: Dict[str, Dict]) -> str:
    floor = results["shuffle only"]["rows_per_s"]
    titles = {"trailing": f"trailing windows {', '.join(f'{m} min' for m in args.sizes)} (one operator)",
              "shuffle only": "the rows shuffled by the key, the same columns, no operator (Spark's floor)",
              "window()": f"Spark's window() of {max(args.sizes)} min"}
    rows = [[titles[name], f"{r['rows_per_s']:,.0f}", f"{r['low']:,.0f} to {r['high']:,.0f}",
             f"{r['rows_per_s'] / floor:.2f}x"] for name, r in results.items()]
    table = markdown_table(["query", "rows/s (median)", "rounds", "of Spark's floor"], rows)
    measured = [(name, r) for name, r in results.items() if "steady_ms" in r]
    phases = markdown_table(
        ["query", "1st micro-batch ms", "2nd", "steady ms", "addBatch", "planning", "latestOffset", "offset log",
         "commit log", "JVM CPU s", "of which JIT compilers"],
        [[titles[name]] + [f"{ms:,}" for ms in r.get("first_ms", [])[:2]] +
         [f"{r['steady_ms'][k]:,.0f}" for k in ("triggerExecution", "addBatch", "queryPlanning", "latestOffset",
                                                  "walCommit", "commitOffsets")] +
         [f"{r.get('jvm_cpu_s', 0):.1f}", f"{r.get('jit_cpu_s', 0):.1f}"]
         for name, r in measured])
    any_run = next(iter(results.values()))
    return (f"{any_run['rows']:,} rows in {any_run['batches']} micro-batches (the trailing query's), watermark delay "
            f"{args.delay} s, local[{args.cores}], median of {args.rounds} round(s) "
            f"({time.strftime('%Y-%m-%d')}).\n\n{table}\n\n"
            + (f"The median round's micro-batches (`durationMs`): the first two, and the median of the steady ones "
               f"(after the first three, before the last) by phase; its JVM's CPU seconds, and those of its JIT "
               f"compiler threads.\n\n{phases}\n\n" if measured else "")
            + machine_markdown())


if __name__ == "__main__":
    main()
