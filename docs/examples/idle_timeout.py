"""The idle timeout example of docs/streaming.md, "When the stream goes quiet", run as it is
printed there.

A query that keeps running (a processing-time trigger) reads one file of clicks, then nothing
more. Without new rows Spark's watermark stays where the last rows left it, so the windows of the
last seconds would stay open; with spark.sql.slidingWindow.idleTimeout, once the input has been
quiet for the timeout, the operator closes them.

    python docs/examples/idle_timeout.py
"""
import json
import os
import tempfile
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa

CLICKS = ["12:00:10", "12:00:11", "12:00:13"]    # alice's clicks on 2024-01-01, then quiet


def all_emitted(query):
    """Whether the query's last micro-batch left no window in its state."""
    last = query.lastProgress
    return bool(last) and last["stateOperators"][0]["numRowsTotal"] == 0 and last["batchId"] > 0


def run_example(spark, work):
    """Runs the example in `spark` (whose session time zone must be UTC) under `work`."""
    source = os.path.join(work, "clicks")
    os.makedirs(source)
    with open(os.path.join(source, "000.json"), "w") as f:
        f.writelines(json.dumps({"user": "alice", "ts": f"2024-01-01 {t}"}) + "\n" for t in CLICKS)

    spark.conf.set("spark.sql.slidingWindow.idleTimeout", "1s")     # read when the query starts
    try:
        windows = (spark.readStream.schema("user STRING, ts TIMESTAMP").json(source)
                   .withWatermark("ts", "1 second")
                   .groupBy("user", swa.sliding_window("ts", "2 seconds").alias("w"))
                   .agg(F.count("*").alias("n")))
        emitted = []

        query = (windows.writeStream
                 .outputMode("append")
                 .foreachBatch(lambda batch, _: emitted.extend(batch.collect()))
                 .option("checkpointLocation", os.path.join(work, "checkpoint"))
                 .trigger(processingTime="200 milliseconds")   # keeps running
                 .start())
        deadline = time.time() + 60
        while time.time() < deadline and not all_emitted(query):
            time.sleep(0.2)
        query.stop()
    finally:
        spark.conf.unset("spark.sql.slidingWindow.idleTimeout")

    closed_while_idle = sum(p["stateOperators"][0]["customMetrics"]["numWindowsClosedWhileIdle"]
                            for p in query.recentProgress)
    print(f"windows emitted: {len(emitted)}, of which closed while the input was quiet: {closed_while_idle}")
    for r in sorted(emitted, key=lambda r: r.w.start):
        print(f"  {r.user} [{r.w.start:%H:%M:%S.%f}, {r.w.end:%H:%M:%S.%f}] n={r.n}")


def main():
    spark = (swa.configure(SparkSession.builder.master("local[2]"))
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.shuffle.partitions", "2")      # Spark's 200 are for big data
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory() as work:
        run_example(spark, work)
    spark.stop()


if __name__ == "__main__":
    main()
