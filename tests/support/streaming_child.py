"""A streaming windowed query run in its own process, so that a test can kill it.

Usage: python streaming_child.py WINDOW SOURCE CHECKPOINT LOG [PAUSE_IN_BATCH]
                                 [--store rocksdb|default] [--partitions N] [--harness SIZE]

WINDOW is `sliding_window` or `batch_window`.

Runs `availableNow` over the JSON files in SOURCE (append mode, RocksDB state, or the default
HDFS-backed store with `--store default`, over `--partitions` shuffle partitions, 3 by default)
and appends every emitted window, with its batch id, to LOG as one JSON line (so a re-run batch
is visible). With PAUSE_IN_BATCH, the sink of that batch writes its rows, creates LOG + ".paused"
and sleeps, for the parent to kill the process in the middle of the batch.

With `--harness SIZE`, the query is the streaming harness's (streaming_harness.sliding_query or
batch_window_harness.batch_window_query, of that window size, over streaming_harness.read_stream
of files written by streaming_harness.write_files), in a session that checks its state row counts
as the tests' does; each attempt of a micro-batch appends one line to LOG, {"batch", "run",
"rows": [every emitted row as a dict]}, and the progress reports of the run go to LOG +
".progress", one JSON line each: the ones before a micro-batch are written when its sink starts,
before the micro-batch commits any state, so a run killed in a micro-batch has reported every
micro-batch before it.
"""
import argparse
import json
import os
import sys
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa

ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
HDFS = "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"
STORES = {"rocksdb": ROCKSDB, "default": HDFS}


def arguments(argv):
    parser = argparse.ArgumentParser(description="A streaming windowed query a test can kill.")
    parser.add_argument("function", choices=["sliding_window", "batch_window"])
    parser.add_argument("source")
    parser.add_argument("checkpoint")
    parser.add_argument("log")
    parser.add_argument("pause_in", nargs="?", type=int, default=-1)
    parser.add_argument("--store", choices=sorted(STORES), default="rocksdb")
    parser.add_argument("--partitions", type=int, default=3)
    parser.add_argument("--harness", metavar="SIZE", default=None)
    return parser.parse_args(argv)


def main() -> None:
    args = arguments(sys.argv[1:])
    builder = (swa.configure(SparkSession.builder.master("local[2]"))
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", str(args.partitions))
               .config("spark.sql.streaming.stateStore.providerClass", STORES[args.store]))
    if args.harness:
        from streaming_harness import VERIFY_ROW_COUNT_CONF
        builder = builder.config(VERIFY_ROW_COUNT_CONF, "true")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    if args.harness:
        run_harness_query(spark, args)
    else:
        run_query(spark, args)
    spark.stop()


def run_query(spark, args) -> None:
    log, pause_in = args.log, args.pause_in
    window = getattr(swa, args.function)("ts", "3 seconds")

    def sink(df, batch_id):
        rows = df.collect()
        with open(log, "a") as f:
            for r in rows:
                f.write(json.dumps({"batch": batch_id, "run": os.getpid(), "k": r.k, "s": r.s, "e": r.e, "n": r.n,
                                    "total": r.total}) + "\n")
            f.flush()
            os.fsync(f.fileno())
        if batch_id == pause_in:
            open(log + ".paused", "w").close()
            time.sleep(600)

    query = (spark.readStream.schema("k string, t long, v long").option("maxFilesPerTrigger", 1)
             .json(args.source)
             .withColumn("ts", F.timestamp_micros("t")).withWatermark("ts", "2 seconds")
             .groupBy("k", window.alias("w"))
             .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
             .select("k", F.unix_micros("w.start").alias("s"), F.unix_micros("w.end").alias("e"),
                     "n", "total")
             .writeStream.outputMode("append").foreachBatch(sink)
             .option("checkpointLocation", args.checkpoint).trigger(availableNow=True).start())
    query.awaitTermination()


def run_harness_query(spark, args) -> None:
    from batch_window_harness import batch_window_query
    from streaming_harness import progress_dict, read_stream, sliding_query

    build = {"sliding_window": sliding_query, "batch_window": batch_window_query}[args.function](args.harness)
    started = {}  # the query, once start() has returned
    reported = set()  # batch ids whose progress is in the progress log

    def append_line(path, record):
        with open(path, "a") as f:
            f.write(json.dumps(record, default=str) + "\n")  # progress ids are UUIDs
            f.flush()
            os.fsync(f.fileno())

    def report_progress():
        if "query" in started:
            for p in map(progress_dict, started["query"].recentProgress):
                if p["batchId"] not in reported:
                    append_line(args.log + ".progress", p)
                    reported.add(p["batchId"])

    def sink(df, batch_id):
        report_progress()  # before this micro-batch's job commits its state
        rows = [r.asDict(recursive=True) for r in df.collect()]
        append_line(args.log, {"batch": batch_id, "run": os.getpid(), "rows": rows})

    started["query"] = (build(read_stream(spark, args.source)).writeStream.outputMode("append")
                        .foreachBatch(sink).option("checkpointLocation", args.checkpoint)
                        .trigger(availableNow=True).start())
    started["query"].awaitTermination()
    report_progress()


if __name__ == "__main__":
    main()
