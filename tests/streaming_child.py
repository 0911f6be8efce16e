"""A streaming windowed query run in its own process, so that a test can kill it.

Usage: python streaming_child.py WINDOW SOURCE CHECKPOINT LOG [PAUSE_IN_BATCH]

WINDOW is `sliding_window` or `batch_window`.

Runs `availableNow` over the JSON files in SOURCE (append mode, RocksDB state) and appends every
emitted window, with its batch id, to LOG as one JSON line (so a re-run batch is visible). With
PAUSE_IN_BATCH, the sink of that batch writes its rows, creates LOG + ".paused" and sleeps, for
the parent to kill the process in the middle of the batch.
"""
import json
import os
import sys
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa

ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"


def main() -> None:
    function, source, checkpoint, log = sys.argv[1:5]
    pause_in = int(sys.argv[5]) if len(sys.argv) > 5 else -1
    spark = (swa.configure(SparkSession.builder.master("local[2]"))
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "3")
             .config("spark.sql.streaming.stateStore.providerClass", ROCKSDB)
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    window = getattr(swa, function)("ts", "3 seconds")

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
             .json(source)
             .withColumn("ts", F.timestamp_micros("t")).withWatermark("ts", "2 seconds")
             .groupBy("k", window.alias("w"))
             .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
             .select("k", F.unix_micros("w.start").alias("s"), F.unix_micros("w.end").alias("e"),
                     "n", "total")
             .writeStream.outputMode("append").foreachBatch(sink)
             .option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
    query.awaitTermination()
    spark.stop()


if __name__ == "__main__":
    main()
