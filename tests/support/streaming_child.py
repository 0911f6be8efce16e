"""A streaming windowed query run in its own process, so that a test can kill it.

Usage: python streaming_child.py WINDOW SOURCE CHECKPOINT LOG [PAUSE_FROM_BATCH] --harness SIZE
                                 [--store rocksdb|default] [--partitions N]

WINDOW is `sliding_window` or `batch_window`: the streaming harness's query
(streaming_harness.sliding_query or batch_window_harness.batch_window_query, of window SIZE, over
streaming_harness.read_stream of files written by streaming_harness.write_files), run
`availableNow` in append mode, with RocksDB state or the default HDFS-backed store with
`--store default`, over `--partitions` shuffle partitions (3 by default), in a session that
checks its state row counts as the tests' does. Each attempt of a micro-batch appends one line to
LOG, {"batch", "run", "rows": [every emitted row as a dict]} (so a re-run micro-batch is
visible), and the progress reports of the run go to LOG + ".progress", one JSON line each: the
ones before a micro-batch are written when its sink starts, before the micro-batch commits any
state, so a run killed in a micro-batch has reported every micro-batch before it.

With PAUSE_FROM_BATCH, the sink of the first micro-batch from that one on that emits rows writes
its line, creates LOG + ".paused" and sleeps, for the parent to kill the process in the middle of
the micro-batch.
"""
import argparse
import json
import os
import sys
import time

from pyspark.sql import SparkSession

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
    parser.add_argument("--harness", metavar="SIZE", required=True)
    return parser.parse_args(argv)


def main() -> None:
    from streaming_harness import VERIFY_ROW_COUNT_CONF

    args = arguments(sys.argv[1:])
    spark = (swa.configure(SparkSession.builder.master("local[2]"))
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", str(args.partitions))
             .config("spark.sql.streaming.stateStore.providerClass", STORES[args.store])
             .config(VERIFY_ROW_COUNT_CONF, "true")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    run_harness_query(spark, args)
    spark.stop()


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
        if 0 <= args.pause_in <= batch_id and rows and not os.path.exists(args.log + ".paused"):
            open(args.log + ".paused", "w").close()
            time.sleep(600)

    started["query"] = (build(read_stream(spark, args.source)).writeStream.outputMode("append")
                        .foreachBatch(sink).option("checkpointLocation", args.checkpoint)
                        .trigger(availableNow=True).start())
    started["query"].awaitTermination()
    report_progress()


if __name__ == "__main__":
    main()
