"""The examples of docs/batch-windows.md (and the README), run as they are printed there.

A batch query whose rows carry their arrival order (`offset`), then the KIP's motivating use in
Structured Streaming: collect each user's events for about 5 seconds and hand them on as one
batch, late events included. Three JSON files, one micro-batch each.

    python docs/examples/batch_windows.py
"""
import json
import os
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa

# (offset, k, ts in seconds): the arrival order, some rows late.
OFFSETS = [(1, "a", 10), (2, "a", 3), (3, "a", 12), (4, "a", 2), (5, "b", 7), (6, "a", 26)]

# One file per micro-batch: (user, time on 2024-01-01, payload).
FILES = [
    [("alice", "12:00:01", "a1"), ("bob", "12:00:02", "b1"), ("alice", "12:00:03", "a2")],
    [("alice", "12:00:06", "a3"), ("alice", "12:00:02", "a4-late"), ("bob", "12:00:04", "b2")],
    [("alice", "12:00:12", "a5"), ("bob", "12:00:01", "b3-late")],
]


def batch_query(spark, out=None):
    spark.createDataFrame(OFFSETS, "offset INT, k STRING, seconds INT") \
        .selectExpr("offset", "k", "timestamp_seconds(seconds) AS ts") \
        .createOrReplaceTempView("events")
    for order in ("offset", None):
        window = f"batch_window(ts, '5 seconds'{', ' + order if order else ''})"
        print(f"GROUP BY k, {window}:", file=out)
        rows = spark.sql(f"""
            SELECT k, {window} AS w, collect_list(offset) AS batch
            FROM events
            GROUP BY k, {window}
            ORDER BY k, w.start""").collect()
        for r in rows:
            print(f"  {r.k} [{r.w.start.second}, {r.w.end.second}) {r.batch}", file=out)


def write_files(folder):
    os.makedirs(folder)
    for i, rows in enumerate(FILES):
        path = os.path.join(folder, f"{i:03d}.json")
        with open(path, "w") as f:
            f.writelines(json.dumps({"user": u, "ts": f"2024-01-01 {t}", "payload": p}) + "\n"
                         for u, t, p in rows)
        # The file source reads files in order of modification time, and files written at once
        # may share one: distinct times keep the order of their names (which rows are late depends
        # on it; docs/streaming.md, "Testing a stream with files").
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))


def streaming_query(spark, source, checkpoint, out=None):
    events = (spark.readStream.schema("user string, ts timestamp, payload string")
              .option("maxFilesPerTrigger", 1).json(source))

    batches = (events
               .withWatermark("ts", "2 seconds")
               .groupBy("user", swa.batch_window("ts", "5 seconds"))
               .agg(F.collect_list("payload").alias("batch")))

    def send(df, batch_id):
        for r in sorted(df.collect(), key=lambda r: (r.user, r.batch_window.start)):
            w = r.batch_window
            print(f"micro-batch {batch_id}: {r.user} [{w.start:%H:%M:%S}, {w.end:%H:%M:%S}) "
                  f"{r.batch}", file=out)

    (batches.writeStream.outputMode("append").foreachBatch(send)
     .option("checkpointLocation", checkpoint).trigger(availableNow=True).start()
     .awaitTermination())


def run_example(spark, work, out=None):
    """Runs both examples in `spark` (whose session time zone must be UTC) under `work`."""
    batch_query(spark, out)
    source = os.path.join(work, "in")
    write_files(source)
    streaming_query(spark, source, os.path.join(work, "ck"), out)


def main():
    spark = (swa.configure(SparkSession.builder.master("local[2]"))
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.sql.streaming.stateStore.providerClass",
                     "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory() as work:
        run_example(spark, work)
    spark.stop()


if __name__ == "__main__":
    main()
