"""Memory of the extension under a 1 GiB heap (docs/performance.md), one case per child process
(each starts its own JVM, with its own heap):

    python -m benchmarks.memory [--rows 20000000] [--windows 5000000] [--case group|stream|trailing]

- group: one group holding millions of rows in one sliding window, on default local settings
  (no driver memory set: 1 GiB of heap): the window's partials spill to local disk instead of
  failing. Runs `GROUP BY k, sliding_window(ts, '1 day')` with count, sum, max and max_by over
  `--rows` rows of a single key, one row per microsecond (so one window holds every row), and
  reports the time, the number of windows, the largest window and the operator's spill size.
- stream: a watermark that closes `--windows` windows in one micro-batch of a streaming query
  (RocksDB state, append mode, `spark.driver.memory=1g`), with `collect_list` among the
  aggregates: the windows are handed on to the sink as they close, never collected. Reports the
  micro-batch's time and windows, and the heap it used, read from the JVM's GC log.
- trailing: a streaming trailing window (`count`, `sum` and `max` over the 10 minutes before each
  row) whose first micro-batch keeps `--trailing-rows` rows over an hour of `--trailing-groups`
  keys waiting for the watermark (2 hours behind), in one partition and a `--trailing-heap`
  driver (640 MiB), each row with a string of `--trailing-payload` characters (none by default);
  a row a day later then makes every one of them due at once.
  Reports both micro-batches' times, the rows emitted and the heap used, from the JVM's GC log.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from typing import List, Optional

from pyspark.sql import functions as F

import sliding_window_agg as swa
from benchmarks.common import machine_markdown, markdown_table, publish, session

ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
START_MICROS = 1_704_067_200_000_000


def spill_size(df) -> int:
    """The `spill size` SQL metric of the SlidingWindowAggregate operator of an executed query."""
    nodes = [df._jdf.queryExecution().executedPlan()]
    total = 0
    while nodes:
        node = nodes.pop()
        if node.nodeName() == "SlidingWindowAggregate":
            total += node.metrics().apply("spillSize").value()
        children = node.children()
        nodes.extend(children.apply(i) for i in range(children.size()))
    return total


def group_case(args) -> str:
    # Default local settings: local[*], no spark.driver.memory. Adaptive execution off only so
    # that the executed plan is the final one, to read its metric.
    spark = session("sliding-window-agg memory benchmark", master="local[*]", driver_memory=None,
                    conf={"spark.sql.adaptive.enabled": "false"})
    heap = spark._jvm.java.lang.Runtime.getRuntime().maxMemory()
    spark.range(args.rows).selectExpr("0 AS k", "timestamp_micros(1704067200000000 + id) AS ts",
                                      "id % 1000 AS v").createOrReplaceTempView("one_group")
    query = spark.sql("""
        SELECT count(*) AS windows, max(n) AS largest, sum(n) AS total FROM (
          SELECT k, sliding_window(ts, '1 day') AS w, count(*) AS n, sum(v) AS s, max(v) AS m,
                 max_by(v, ts) AS b
          FROM one_group GROUP BY k, sliding_window(ts, '1 day'))""")
    start = time.perf_counter()
    row = query.collect()[0]
    seconds = time.perf_counter() - start
    spilled = spill_size(query)
    table = markdown_table(
        ["rows in the group", "JVM heap", "time s", "windows", "rows in the largest window", "spill size"],
        [[f"{args.rows:,}", f"{heap / 2**30:.1f} GiB", f"{seconds:.1f}", f"{row.windows:,}",
          f"{row.largest:,}", f"{spilled / 2**20:,.0f} MiB"]])
    assert row.largest == args.rows, "one window holds every row"
    spark.stop()
    return table


# `-Xlog:gc:...:uptime` lines: "[12.345s][info][gc] GC(7) Pause Young (Normal) (G1 Evacuation
# Pause) 350M->120M(1024M) 12.345ms". Before -> after a collection, in MiB.
GC_LINE = re.compile(r"^\[(\d+\.\d+)s\].*GC\(\d+\) (Pause \w+).* (\d+)M->(\d+)M\(\d+M\)")


def gc_events(path: str) -> List[tuple]:
    """(uptime s, kind, heap MiB before, heap MiB after) of each collection in a GC log."""
    events = []
    with open(path) as f:
        for line in f:
            m = GC_LINE.match(line)
            if m:
                events.append((float(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4))))
    return events


def stream_case(args) -> str:
    """`--windows` windows close in one micro-batch: `--groups` keys, each with n times 600 ms
    apart and a 1-second window, so that every time has a left window and a right window (of two
    rows each). The first micro-batch stores the rows (no watermark yet); the next one, a no-data
    micro-batch with the watermark at the last time, closes every window but the right windows
    of each group's last two times: groups * (2n - 2) windows."""
    per_group = args.windows // (2 * args.groups) + 1
    rows = per_group * args.groups
    expected = args.groups * (2 * per_group - 2)
    work = tempfile.mkdtemp(prefix="swa-memory-")
    gc_log = os.path.join(work, "gc.log")
    spark = session("sliding-window-agg memory benchmark (stream)", master="local[2]",
                    driver_memory="1g",
                    conf={"spark.driver.extraJavaOptions": f"-Xlog:gc:file={gc_log}:uptime",
                          "spark.sql.shuffle.partitions": "1",
                          "spark.sql.streaming.stateStore.providerClass": ROCKSDB})
    jvm = spark._jvm
    heap = jvm.java.lang.Runtime.getRuntime().maxMemory()
    jvm_start_ms = jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime()
    try:
        spark.range(rows).selectExpr(
            f"id % {args.groups} AS k",
            f"timestamp_micros({START_MICROS} + (id DIV {args.groups}) * 600000) AS ts",
            "id AS v").write.parquet(os.path.join(work, "in"))
        stream = (spark.readStream.schema("k BIGINT, ts TIMESTAMP, v BIGINT")
                  .parquet(os.path.join(work, "in")).withWatermark("ts", "0 seconds"))
        windows = stream.groupBy("k", swa.sliding_window("ts", "1 second")) \
            .agg(F.count("*").alias("n"), F.collect_list("v").alias("vs"))
        query = (windows.writeStream.format("noop").outputMode("append")
                 .option("checkpointLocation", os.path.join(work, "checkpoint")).start())
        try:
            query.processAllAvailable()
            failure = None
        except Exception as e:  # reported: the old, buffering code runs out of heap here
            failure = f"failed: {str(e).splitlines()[0][:120]}"
        progress = list(query.recentProgress)
        query.stop()
    finally:
        spark.stop()
    closing = max(progress, key=lambda p: windows_emitted(p)) if progress else None
    emitted = windows_emitted(closing) if closing else 0
    if closing:
        began = (iso_ms(closing["timestamp"]) - jvm_start_ms) / 1000
        # Spark 3.5's progress has no batchDuration: its trigger's duration is the same span.
        duration = closing.get("batchDuration", closing["durationMs"]["triggerExecution"])
        ended = began + duration / 1000
        seconds = f"{duration / 1000:.1f}"
    else:
        began, ended, seconds = 0.0, float("inf"), "-"
    events = gc_events(gc_log)
    during = [e for e in events if began <= e[0] <= ended]
    shutil.rmtree(work, ignore_errors=True)
    table = markdown_table(
        ["windows closing in one micro-batch", "rows", "JVM heap", "micro-batch s",
         "windows emitted", "heap after GC, max (micro-batch)", "heap before GC, max (micro-batch)",
         "collections (micro-batch)", "heap after GC, max (whole run)"],
        [[f"{expected:,}", f"{rows:,}", f"{heap / 2**30:.1f} GiB", seconds, f"{emitted:,}",
          mib(max((e[3] for e in during), default=None)), mib(max((e[2] for e in during), default=None)),
          f"{len(during)} ({sum(1 for e in during if 'Full' in e[1])} full)",
          mib(max((e[3] for e in events), default=None))]])
    if failure:
        return table + "\n\n" + failure
    assert emitted == expected, f"{emitted} windows emitted, {expected} expected"
    return table


def trailing_case(args) -> str:
    """`--trailing-rows` rows, `--trailing-groups` keys, evenly over an hour: one micro-batch keeps
    them all waiting (the watermark is 2 hours behind), the next, with one row a day later, makes
    them all due: the operator takes them in and emits them in bounded steps, never all at once."""
    rows, groups = args.trailing_rows, args.trailing_groups
    spacing = 3600 * 1_000_000 // rows  # microseconds between rows: an hour in all
    work = tempfile.mkdtemp(prefix="swa-memory-")
    gc_log = os.path.join(work, "gc.log")
    conf = {"spark.driver.extraJavaOptions": f"-Xlog:gc:file={gc_log}:uptime",
            "spark.sql.shuffle.partitions": "1"}
    if args.trailing_store == "rocksdb":
        conf["spark.sql.streaming.stateStore.providerClass"] = ROCKSDB
    spark = session("sliding-window-agg memory benchmark (trailing)", master="local[2]",
                    driver_memory=args.trailing_heap, conf=conf)
    jvm = spark._jvm
    heap = jvm.java.lang.Runtime.getRuntime().maxMemory()
    jvm_start_ms = jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime()
    source = os.path.join(work, "in")
    try:
        payload = f"repeat(char(97 + id % 26), {args.trailing_payload}) AS p"
        spark.range(rows).selectExpr(f"id % {groups} AS k", f"timestamp_micros({START_MICROS} + id * {spacing}) AS ts",
                                     "id AS v", payload).coalesce(1).write.parquet(os.path.join(source, "0"))
        spark.range(1).selectExpr("0L AS k", f"timestamp_micros({START_MICROS + 86_400_000_000}) AS ts", "0L AS v",
                                  "'' AS p").coalesce(1).write.parquet(os.path.join(source, "1"))
        stream = (spark.readStream.schema("k BIGINT, ts TIMESTAMP, v BIGINT, p STRING").option("maxFilesPerTrigger", 1)
                  .option("recursiveFileLookup", "true").parquet(source).withWatermark("ts", "2 hours"))
        w = swa.trailing_window("k", "ts", "10 minutes")
        # The payload is emitted with each row, so the operator keeps it with the row.
        trailing = stream.select("k", "ts", "p", F.count("*").over(w).alias("n"), F.sum("v").over(w).alias("s"),
                                 F.max("v").over(w).alias("m"))
        query = (trailing.writeStream.format("noop").outputMode("append")
                 .option("checkpointLocation", os.path.join(work, "checkpoint")).start())
        try:
            query.processAllAvailable()
            failure = None
        except Exception as e:  # reported: an operator that holds the rows runs out of heap here
            failure = f"failed: {str(e).splitlines()[0][:160]}"
        progress = list(query.recentProgress)
        query.stop()
    finally:
        spark.stop()
    taking = next((p for p in progress if p["numInputRows"] >= rows), None)
    emitting = max(progress, key=trailing_rows_emitted) if progress else None
    emitted = trailing_rows_emitted(emitting) if emitting else 0
    events = gc_events(gc_log)
    cells = []
    for p in (taking, emitting):
        if p is None:
            cells += ["-", "-"]
            continue
        began = (iso_ms(p["timestamp"]) - jvm_start_ms) / 1000
        duration = p.get("batchDuration", p["durationMs"]["triggerExecution"])
        during = [e for e in events if began <= e[0] <= began + duration / 1000]
        cells += [f"{duration / 1000:.1f}", mib(max((e[3] for e in during), default=None))]
    shutil.rmtree(work, ignore_errors=True)
    table = markdown_table(
        ["rows kept waiting", "keys", "payload chars", "state store", "JVM heap", "taking in s", "heap after GC, max (taking in)",
         "emitting s", "heap after GC, max (emitting)", "rows emitted", "heap after GC, max (whole run)"],
        [[f"{rows:,}", f"{groups:,}", f"{args.trailing_payload:,}", args.trailing_store, f"{heap / 2**20:,.0f} MiB", *cells[:2], *cells[2:],
          f"{emitted:,}", mib(max((e[3] for e in events), default=None))]])
    if failure:
        return table + "\n\n" + failure
    assert emitted == rows, f"{emitted} rows emitted, {rows} expected"
    return table


def trailing_rows_emitted(progress: dict) -> int:
    """The rows the sink received in a micro-batch (the trailing operator emits each row once)."""
    return max(int(progress.get("sink", {}).get("numOutputRows", 0)), 0)


def windows_emitted(progress: dict) -> int:
    return sum(int(op.get("customMetrics", {}).get("numWindowsEmitted", 0))
               for op in progress.get("stateOperators", []))


def iso_ms(timestamp: str) -> int:
    from datetime import datetime
    return int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1000)


def mib(value: Optional[int]) -> str:
    return "-" if value is None else f"{value:,} MiB"


def main(argv: Optional[List[str]] = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=20_000_000, help="group: rows in the one group")
    p.add_argument("--windows", type=int, default=5_000_000,
                   help="stream: windows that close in one micro-batch")
    p.add_argument("--groups", type=int, default=10, help="stream: keys")
    p.add_argument("--trailing-rows", type=int, default=6_000_000,
                   help="trailing: rows kept waiting, then due at once")
    p.add_argument("--trailing-groups", type=int, default=50_000, help="trailing: keys")
    p.add_argument("--trailing-payload", type=int, default=0,
                   help="trailing: characters of a string column each row carries")
    p.add_argument("--trailing-heap", default="640m", help="trailing: spark.driver.memory")
    p.add_argument("--trailing-store", choices=["rocksdb", "hdfs"], default="rocksdb",
                   help="trailing: the state store provider")
    p.add_argument("--case", choices=["group", "stream", "trailing"],
                   help="run one case in this process (default: each in a child process)")
    p.add_argument("--report", help="write the results as Markdown to this file")
    args = p.parse_args(argv)

    if args.case:
        print({"group": group_case, "stream": stream_case, "trailing": trailing_case}[args.case](args))
        return
    # Each case in its own JVM: its own heap, GC log and driver settings.
    tables = []
    for case in ["group", "stream", "trailing"]:
        child = [sys.executable, "-m", "benchmarks.memory", "--case", case, "--rows", str(args.rows),
                 "--windows", str(args.windows), "--groups", str(args.groups),
                 "--trailing-rows", str(args.trailing_rows), "--trailing-groups", str(args.trailing_groups),
                 "--trailing-payload", str(args.trailing_payload), "--trailing-heap", args.trailing_heap,
                 "--trailing-store", args.trailing_store]
        result = subprocess.run(child, capture_output=True, text=True)
        if result.returncode != 0:
            sys.stderr.write(result.stdout[-3000:] + result.stderr[-3000:])
            raise SystemExit(f"the {case} case failed")
        tables.append(result.stdout.strip())
    publish("\n\n".join(tables + [machine_markdown()]), args.report)


if __name__ == "__main__":
    main()
