"""A sliding_window aggregation from one Kafka topic to another, in a process of its own with
Spark's Kafka connector on its classpath (tests/test_kafka.py).

Usage: python kafka_child.py BOOTSTRAP WORKDIR CONNECTOR_JARS

Writes the rows of WORKDIR/rows.json to a topic (keyed by `k`, two partitions), runs the query on
it `availableNow` in append mode with closeAtEndOfInput (every window emitted at the end of the
input), a few hundred records per micro-batch, into another topic as JSON; then prints, as one
JSON object, the windows read back from that topic, those of the same aggregation in batch over
the same rows, and the query's progress."""
import json
import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa
from streaming_harness import progress_dict

SCHEMA = "k STRING, ts TIMESTAMP, v BIGINT, id BIGINT"
# JSON's default timestamp format has milliseconds: a window's bounds have microseconds.
MICROS = {"timestampFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX"}


def windows(df):
    return (df.groupBy("k", swa.sliding_window("ts", "10 seconds").alias("w"))
            .agg(F.count("*").alias("n"), F.sum("v").alias("total"), F.collect_list("id").alias("ids")))


def as_rows(df):
    return [{"k": r.k, "start": r.w.start.isoformat(), "end": r.w.end.isoformat(), "n": r.n, "total": r.total,
             "ids": sorted(r.ids)} for r in df.collect()]


def main() -> None:
    bootstrap, work, jars = sys.argv[1:4]
    # The connector's jars on the builder: configure() adds the extension's to them.
    spark = (swa.configure(SparkSession.builder.master("local[2]").config("spark.jars", jars))
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "3")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.slidingWindow.closeAtEndOfInput", "true")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    rows = spark.read.schema(SCHEMA).json(os.path.join(work, "rows.json"))
    (rows.selectExpr("k AS key", "to_json(struct(*)) AS value").write.format("kafka")
     .option("kafka.bootstrap.servers", bootstrap).option("topic", "events").save())

    events = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", bootstrap)
              .option("subscribe", "events").option("startingOffsets", "earliest")
              .option("maxOffsetsPerTrigger", 150).load()
              .select(F.from_json(F.col("value").cast("string"), SCHEMA).alias("e")).select("e.*"))
    query = (windows(events.withWatermark("ts", "5 seconds"))
             .select(F.col("k").alias("key"), F.to_json(F.struct("*"), MICROS).alias("value"))
             .writeStream.format("kafka").option("kafka.bootstrap.servers", bootstrap).option("topic", "windows")
             .option("checkpointLocation", os.path.join(work, "chk")).outputMode("append")
             .trigger(availableNow=True).start())
    query.awaitTermination()
    progress = [progress_dict(p) for p in query.recentProgress]

    emitted = (spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap)
               .option("subscribe", "windows").option("startingOffsets", "earliest").load()
               .select(F.from_json(F.col("value").cast("string"),
                                   "k STRING, w STRUCT<start: TIMESTAMP, end: TIMESTAMP>, n BIGINT, total BIGINT, "
                                   "ids ARRAY<BIGINT>", MICROS).alias("r")).select("r.*"))
    print(json.dumps({"stream": as_rows(emitted), "batch": as_rows(windows(rows)),
                      "batches": [p["batchId"] for p in progress if p["numInputRows"] > 0]}))
    spark.stop()


if __name__ == "__main__":
    main()
