"""What the fallbacks of older Spark versions cost (docs/performance.md, "Spark versions").

    python -m benchmarks.spark_versions [--report FILE]

Runs, on each supported Spark (each in its virtualenv, buildtools/spark_env.py), the streaming
benchmark's sliding_window query and Spark's tumbling window() with the same aggregates on the
same stream, at a smaller size: RocksDB state, append mode. The state of a sliding_window query
is arranged by what the Spark has (docs/compatibility.md): no time index on 3.5 (every group is
visited in every micro-batch with a watermark), a time index with rows read by prefix scan on
4.0 and 4.1, range scans on 4.2 and 4.3.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Dict, List, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARRANGEMENT = {"3.5": "scan", "4.0": "time index, prefix scans", "4.1": "time index, prefix scans",
               "4.2": "time index, range scans", "4.3": "time index, range scans"}
SIZE = ["--groups", "20000", "--rows-per-batch", "20000", "--measured", "6", "--partitions", "2"]


def child(argv: List[str]) -> None:
    """In the current interpreter: both queries; prints one JSON line."""
    from pyspark.sql import functions as F

    import sliding_window_agg as swa
    from benchmarks.common import session
    from benchmarks.streaming import ROCKSDB, measure, parse

    args = parse(argv)
    spark = session("sliding-window-agg Spark versions benchmark", conf={
        "spark.sql.shuffle.partitions": str(args.partitions),
        "spark.sql.streaming.stateStore.providerClass": ROCKSDB,
    })
    w = args.window
    aggs = [F.count("*").alias("n"), F.sum("v").alias("total"), F.max("v").alias("top")]
    results = [
        measure(spark, args, "sliding_window", w,
                lambda df: df.groupBy("k", swa.sliding_window("ts", f"{int(w)} seconds")).agg(*aggs)),
        measure(spark, args, "window", w,
                lambda df: df.groupBy("k", F.window("ts", f"{int(w)} seconds")).agg(*aggs)),
    ]
    print("RESULT " + json.dumps({"spark": spark.version, "results": results}), flush=True)
    spark.stop()


def main(argv: Optional[List[str]] = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--report", help="write the results as Markdown to this file")
    p.add_argument("--versions", default="3.5,4.0,4.1,4.2,4.3")
    args = p.parse_args(argv)
    from benchmarks.common import machine_markdown, markdown_table, publish

    rows = []
    for minor in args.versions.split(","):
        out = subprocess.run([sys.executable, os.path.join(ROOT, "buildtools", "spark_env.py"), minor,
                              "--run", "-m", "benchmarks.spark_versions", "--child", *SIZE],
                             capture_output=True, text=True, cwd=ROOT)
        line = next((l for l in out.stdout.splitlines() if l.startswith("RESULT ")), None)
        if line is None:
            raise RuntimeError(f"Spark {minor}: {out.stdout[-2000:]}{out.stderr[-3000:]}")
        found = json.loads(line[len("RESULT "):])
        sliding, window = found["results"]
        print(minor, found, flush=True)
        rows.append([found["spark"], ARRANGEMENT[minor], f"{sliding['rows_per_s']:,.0f}",
                     f"{window['rows_per_s']:,.0f}", f"{sliding['rows_per_s'] / window['rows_per_s']:.2f}x",
                     f"{sliding['ms_median']:,.0f}", f"{sliding['rows_read'] / sliding['rows_in']:.1f}"])
    table = markdown_table(
        ["Spark", "state arrangement (RocksDB)", "sliding_window rows/s", "window() rows/s",
         "ratio", "sliding_window ms per micro-batch (median)", "state rows read per input row"], rows)
    publish(f"20,000 groups, 20,000 rows per micro-batch, 30 s of event time per micro-batch, "
            f"60 s windows, watermark delay 10 s, RocksDB state, append mode, 2 partitions, each "
            f"Spark in its own run ({time.strftime('%Y-%m-%d')}).\n\n{table}\n\n{machine_markdown()}",
            args.report)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2:])
    else:
        main()
