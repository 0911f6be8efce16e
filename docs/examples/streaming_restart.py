"""The complete streaming example of docs/streaming.md: a query stopped and restarted.

Purchases arrive as CSV files in an input folder. A streaming query reads them, one file per
micro-batch, and writes the 10-second sliding windows of each user, in append mode, to a
parquet folder; its state is in RocksDB, in its checkpoint. It runs with the availableNow
trigger: it reads the files that are there, then stops. Two more files arrive, and the same
query restarts from the same checkpoint: it reads only the new files and writes only new
windows. A batch read of the parquet folder then shows every window once.

    python docs/examples/streaming_restart.py
"""
import json
import os
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa

PROVIDER = "spark.sql.streaming.stateStore.providerClass"
ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"

# The input files, (user, time on 2024-01-01, amount) each: run 1 finds the first two, run 2
# the other two.
RUN_1 = [
    [("alice", "12:00:10", 1.0), ("bob", "12:00:12", 10.0), ("alice", "12:00:14", 2.0)],
    [("alice", "12:00:17", 3.0), ("bob", "12:00:21", 20.0), ("alice", "12:00:25", 4.0)],
]
RUN_2 = [
    [("alice", "12:00:05", 9.0), ("alice", "12:00:22", 5.0), ("bob", "12:00:28", 30.0)],  # :05 is late
    [("alice", "12:00:45", 6.0)],  # moves the watermark to 12:00:40
]


def add_files(folder, files, first):
    os.makedirs(folder, exist_ok=True)
    for i, rows in enumerate(files, start=first):
        path = os.path.join(folder, f"{i:03d}.csv")
        with open(path, "w") as f:
            f.write("user,ts,amount\n")
            f.writelines(f"{user},2024-01-01 {t},{amount}\n" for user, t, amount in rows)
        # The file source reads files in order of modification time, and files written at once
        # may share one: distinct times keep the order of their names (which rows are late depends
        # on it; docs/streaming.md, "Testing a stream with files").
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))


def run(spark, source, sink, checkpoint):
    purchases = (spark.readStream
                 .schema("user STRING, ts TIMESTAMP, amount DOUBLE")
                 .option("header", True)
                 .option("maxFilesPerTrigger", 1)              # one file per micro-batch
                 .csv(source))
    windows = (purchases
               .withWatermark("ts", "5 seconds")               # the grace period
               .groupBy("user", swa.sliding_window("ts", "10 seconds").alias("w"))
               .agg(F.count("*").alias("n"), F.sum("amount").alias("total")))
    query = (windows.writeStream
             .outputMode("append")                             # each window once, when it closes
             .format("parquet")
             .option("path", sink)
             .option("checkpointLocation", checkpoint)         # offsets, state, sink's log
             .trigger(availableNow=True)                       # the files there, then stop
             .start())
    query.awaitTermination()
    return query


def summary(query):
    """Rows read and rows dropped as late, from the query's progress reports."""
    progress = [p if isinstance(p, dict) else json.loads(p.json)  # PySpark 3.5 gives dicts
                for p in query.recentProgress]
    read = sum(p["numInputRows"] for p in progress)
    late = sum(p["stateOperators"][0]["numRowsDroppedByWatermark"] for p in progress)
    return f"read {read} rows, dropped {late} late"


def run_example(spark, work):
    """Runs the example in `spark` (whose session time zone must be UTC) under `work`."""
    source, sink, checkpoint = (os.path.join(work, d) for d in ("purchases", "windows", "checkpoint"))
    previous = spark.conf.get(PROVIDER, None)
    spark.conf.set(PROVIDER, ROCKSDB)  # read when a query first starts; kept in its checkpoint
    try:
        add_files(source, RUN_1, first=0)
        query = run(spark, source, sink, checkpoint)
        seen = {(r.user, r.w) for r in spark.read.parquet(sink).collect()}
        print(f"run 1: {summary(query)}, the sink holds {len(seen)} windows")

        add_files(source, RUN_2, first=len(RUN_1))
        query = run(spark, source, sink, checkpoint)   # the same query and checkpoint
        windows = spark.read.parquet(sink).orderBy("user", "w.start").collect()   # a batch read
        distinct = {(r.user, r.w) for r in windows}
        print(f"run 2: {summary(query)}, the sink holds {len(windows)} windows "
              f"({len(distinct)} distinct), {len(distinct - seen)} new")
        for r in windows:
            print(f"  {r.user:5} [{r.w.start:%H:%M:%S.%f}, {r.w.end:%H:%M:%S.%f}] "
                  f"n={r.n} total={r.total:4}  written by run {1 if (r.user, r.w) in seen else 2}")
    finally:
        if previous is None:
            spark.conf.unset(PROVIDER)
        else:
            spark.conf.set(PROVIDER, previous)


def main():
    spark = (swa.configure(SparkSession.builder.master("local[2]"))
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.shuffle.partitions", "2")                          # state stores
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory() as work:   # a new input folder, sink and checkpoint
        run_example(spark, work)
        spark.stop()


if __name__ == "__main__":
    main()
