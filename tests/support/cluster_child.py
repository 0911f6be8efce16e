"""Runs sliding windows on local-cluster[2,1,1024] (two executor JVMs) with the jar shipped by
sliding_window_agg.configure(), as a user adds one jar and one pip package to a cluster.

Usage: python cluster_child.py EVENTS_JSON SOURCE_DIR CHECKPOINT OUT_JSON
Writes {"executors": n, "batch": [...], "stream": [...]} windows as [k, s, e, n, total].
"""
import json
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa


def windows(df):
    return (df.groupBy("k", swa.sliding_window("ts", "3 seconds"))
            .agg(F.count("*").alias("n"), F.sum("v").alias("total"))
            .select("k", F.unix_micros("sliding_window.start").alias("s"),
                    F.unix_micros("sliding_window.end").alias("e"), "n", "total"))


def main() -> None:
    events_path, source, checkpoint, out_path = sys.argv[1:5]
    spark = (swa.configure(SparkSession.builder.master("local-cluster[2,1,1024]"))
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "4")
             .config("spark.sql.streaming.stateStore.providerClass",
                     "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    schema = "k string, t long, v long"
    executors = len(set(spark.sparkContext.parallelize(range(16), 16)
                        .map(lambda _: __import__("os").getpid()).collect()))

    batch_df = spark.read.schema(schema).json(events_path).withColumn("ts", F.timestamp_micros("t"))
    batch = [list(r) for r in windows(batch_df.repartition(4)).collect()]

    stream_rows = []

    def sink(df, batch_id):
        stream_rows.extend(list(r) for r in df.collect())

    stream = (spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).json(source)
              .withColumn("ts", F.timestamp_micros("t")).withWatermark("ts", "1 second"))
    query = (windows(stream).writeStream.outputMode("append").foreachBatch(sink)
             .option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
    query.awaitTermination()
    with open(out_path, "w") as f:
        json.dump({"executors": executors, "batch": batch, "stream": stream_rows}, f)
    spark.stop()


if __name__ == "__main__":
    main()
