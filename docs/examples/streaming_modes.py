"""The streaming example of docs/streaming.md, run as it is printed there.

One user's clicks arrive in four JSON files, one file per micro-batch. The same sliding-window
query runs once in append mode and once in update mode; each micro-batch prints the windows it
emitted, and each run ends with a line per micro-batch from the query's progress reports.

    python docs/examples/streaming_modes.py            # both modes
    python docs/examples/streaming_modes.py update     # one mode
"""
import json
import os
import sys
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa

PROVIDER = "spark.sql.streaming.stateStore.providerClass"
ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"

# Arrival order: each inner list is one file, read by one micro-batch.
FILES = [
    [("alice", "2024-01-01 12:00:10"), ("alice", "2024-01-01 12:00:14")],
    [("alice", "2024-01-01 12:00:17"), ("alice", "2024-01-01 12:00:25")],
    [("alice", "2024-01-01 12:00:31")],
    [("alice", "2024-01-01 12:00:15"), ("alice", "2024-01-01 12:00:45")],  # :15 is late
]


def write_files(folder):
    os.makedirs(folder)
    for i, rows in enumerate(FILES):
        path = os.path.join(folder, f"{i:03d}.json")
        with open(path, "w") as f:
            f.writelines(json.dumps({"user": u, "ts": ts}) + "\n" for u, ts in rows)
        # The file source reads files in order of modification time, and files written at once
        # may share one: distinct times keep the order of their names (which rows are late depends
        # on it; docs/streaming.md, "Testing a stream with files").
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))


def run(spark, source, checkpoint, mode, out=None):
    clicks = (spark.readStream.schema("user STRING, ts TIMESTAMP")
              .option("maxFilesPerTrigger", 1)                # one file per micro-batch
              .json(source))
    windows = (clicks
               .withWatermark("ts", "5 seconds")              # the grace period
               .groupBy("user", swa.sliding_window("ts", "10 seconds"))
               .agg(F.count("*").alias("n"),
                    F.array_sort(F.collect_list(F.date_format("ts", "ss"))).alias("seconds")))

    def show(batch, batch_id):
        # One action per micro-batch: a second one (an orderBy samples its input first) would
        # run the stateful plan again and count its metrics twice.
        rows = sorted(batch.collect(), key=lambda r: (r.user, r.sliding_window.start))
        print(f"batch {batch_id}: {len(rows)} window(s)", file=out)
        for r in rows:
            w = r.sliding_window
            print(f"  {r.user} [{w.start:%H:%M:%S.%f}, {w.end:%H:%M:%S.%f}] "
                  f"n={r.n} {r.seconds}", file=out)

    query = (windows.writeStream.outputMode(mode).foreachBatch(show)
             .option("checkpointLocation", checkpoint)
             .trigger(availableNow=True)                      # every file, then stop
             .start())
    query.awaitTermination()
    return query


def report(query, out=None):
    for p in query.recentProgress:
        p = p if isinstance(p, dict) else json.loads(p.json)  # PySpark 3.5 gives dicts
        op = p["stateOperators"][0]
        print(f"batch {p['batchId']}: watermark {p['eventTime']['watermark']}, "
              f"input {p['numInputRows']}, dropped {op['numRowsDroppedByWatermark']}, "
              f"emitted {op['customMetrics']['numWindowsEmitted']}, "
              f"state rows {op['numRowsTotal']}", file=out)


def run_example(spark, work, modes=("append", "update"), out=None):
    """Runs the example in `spark` (whose session time zone must be UTC) under `work`."""
    source = os.path.join(work, "clicks")
    write_files(source)
    previous = spark.conf.get(PROVIDER, None)
    spark.conf.set(PROVIDER, ROCKSDB)  # read when a query first starts; kept in its checkpoint
    try:
        for mode in modes:
            print(f"== {mode} mode ==", file=out)
            query = run(spark, source, os.path.join(work, f"checkpoint-{mode}"), mode, out)
            report(query, out)
    finally:
        if previous is None:
            spark.conf.unset(PROVIDER)
        else:
            spark.conf.set(PROVIDER, previous)


def main():
    spark = (swa.configure(SparkSession.builder.master("local[2]"))
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.shuffle.partitions", "2")   # state stores per operator
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory() as work:
        run_example(spark, work, sys.argv[1:] or ("append", "update"))
    spark.stop()


if __name__ == "__main__":
    main()
