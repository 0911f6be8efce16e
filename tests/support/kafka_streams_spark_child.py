"""The extension's side of the Kafka Streams comparison (kafka_side_by_side.py): sliding_window
on the topic Kafka Streams read, in a process of its own with Spark's Kafka connector.

Usage: python kafka_streams_spark_child.py BOOTSTRAP TOPIC SIZE_MS GRACE_MS BATCH WORKDIR CONNECTOR_JARS

The topic's records as Kafka Streams reads them: key = group, value = JSON {"key", "ts", "id",
"v"}, record timestamp = event time, read as the source's `timestamp` column. The query is the
topology's: `withWatermark(timestamp, grace)`, `sliding_window(timestamp, size)`, count and sum,
append mode (emit on window close), `availableNow` BATCH records per micro-batch, the
late-rows table configured. Prints one JSON object: the windows ({"key", "start", "end" in µs
since the epoch, both inclusive, "n", "sum", "ids"}), the rows dropped by the watermark
(numRowsDroppedByWatermark, summed over the micro-batches) and the late-rows table's rows: [id,
the watermark it was late for, in ms]."""
import json
import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa
from streaming_harness import progress_dict

VALUE = "key STRING, ts BIGINT, id BIGINT, v BIGINT"


def main() -> None:
    bootstrap, topic, size_ms, grace_ms, batch, work, jars = sys.argv[1:8]
    spark = (swa.configure(SparkSession.builder.master("local[2]").config("spark.jars", jars))
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.warehouse.dir", os.path.join(work, "warehouse"))
             .config("spark.sql.slidingWindow.lateRows.table", "late_rows")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    records = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", bootstrap)
               .option("subscribe", topic).option("startingOffsets", "earliest")
               .option("maxOffsetsPerTrigger", int(batch)).load()
               .select(F.col("key").cast("string").alias("key"), "timestamp",
                       F.from_json(F.col("value").cast("string"), VALUE).alias("value")))
    # SlidingWindows.ofTimeDifferenceAndGrace(ofMillis(size), ofMillis(grace))
    windows = (records.withWatermark("timestamp", f"{grace_ms} milliseconds")
               .groupBy("key", swa.sliding_window("timestamp", f"{size_ms} milliseconds").alias("w"))
               .agg(F.count("*").alias("n"), F.sum("value.v").alias("sum"), F.collect_list("value.id").alias("ids")))
    query = (windows.writeStream.format("memory").queryName("windows").outputMode("append")
             .option("checkpointLocation", os.path.join(work, "checkpoint"))
             .trigger(availableNow=True).start())
    query.awaitTermination()
    progress = [progress_dict(p) for p in query.recentProgress]
    emitted = spark.sql("SELECT key, unix_micros(w.start) AS start, unix_micros(w.end) AS end, n, sum, ids "
                        "FROM windows").collect()
    print(json.dumps({
        "windows": [dict(r.asDict(), ids=sorted(r.ids)) for r in emitted],
        "dropped": sum(op.get("numRowsDroppedByWatermark", 0) for p in progress for op in p["stateOperators"]),
        "late_rows": sorted([r.id, r.watermark] for r in spark.read.table("late_rows")
                            .selectExpr("value.id AS id", "unix_millis(late_watermark) AS watermark").collect()),
        "batches": len([p for p in progress if p["numInputRows"] > 0]),
    }))
    spark.stop()


if __name__ == "__main__":
    main()
