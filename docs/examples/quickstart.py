"""The examples of docs/getting-started.md, run as they are printed there.

    python docs/examples/quickstart.py
"""
import json
import os
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa

ROWS = [("12:00:10", 1.0), ("12:00:14", 2.0), ("12:00:17", 3.0), ("12:00:25", 4.0),
        ("12:00:31", 5.0)]


def batch_example(spark):
    events = spark.createDataFrame(
        [("alice", "2024-01-01 12:00:10", 1.0), ("alice", "2024-01-01 12:00:14", 2.0),
         ("alice", "2024-01-01 12:00:17", 3.0), ("alice", "2024-01-01 12:00:25", 4.0),
         ("alice", "2024-01-01 12:00:31", 5.0)],
        "user STRING, ts STRING, amount DOUBLE",
    ).withColumn("ts", F.to_timestamp("ts"))

    (events
        .groupBy("user", swa.sliding_window("ts", "10 seconds"))
        .agg(F.count("*").alias("n"), F.sum("amount").alias("total"))
        .orderBy("user", "sliding_window.start")
        .show(truncate=False))

    events.createOrReplaceTempView("events")
    spark.sql("""
        SELECT user, sliding_window(ts, '10 seconds') AS w, count(*) AS n, sum(amount) AS total
        FROM events
        GROUP BY user, sliding_window(ts, '10 seconds')
        HAVING n > 1
        ORDER BY user, w.start
    """).show(truncate=False)


def streaming_example(spark, work):
    # The same rows as a JSON file, plus one a minute later that moves the watermark on.
    os.makedirs(f"{work}/events")
    with open(f"{work}/events/000.json", "w") as f:
        for t, amount in ROWS + [("12:01:10", 6.0)]:
            f.write(json.dumps({"user": "alice", "ts": f"2024-01-01 {t}", "amount": amount}) + "\n")

    events = (spark.readStream.schema("user STRING, ts TIMESTAMP, amount DOUBLE")
              .json(f"{work}/events")
              .withWatermark("ts", "5 seconds"))
    events.createOrReplaceTempView("event_stream")

    windows = spark.sql("""
        SELECT user, sliding_window(ts, '10 seconds') AS w, count(*) AS n, sum(amount) AS total
        FROM event_stream
        GROUP BY user, sliding_window(ts, '10 seconds')
    """)
    query = (windows.writeStream
             .outputMode("append")                 # each window once, when the watermark passes it
             .format("memory").queryName("closed_windows")
             .option("checkpointLocation", f"{work}/checkpoint")
             .trigger(availableNow=True)
             .start())
    query.awaitTermination()
    spark.sql("SELECT * FROM closed_windows ORDER BY w.start").show(truncate=False)


def run_example(spark, work):
    batch_example(spark)
    streaming_example(spark, work)


def main():
    spark = (swa.configure(SparkSession.builder.master("local[2]"))
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.shuffle.partitions", "2")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory() as work:
        run_example(spark, work)
    spark.stop()


if __name__ == "__main__":
    main()
