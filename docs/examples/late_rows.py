"""The example of docs/streaming.md, "Late rows as data", run as it is printed there.

Purchases, one CSV file per micro-batch, windowed with sliding_window and a 5-second watermark:
one purchase comes late. With spark.sql.slidingWindow.lateRows.table, the query writes it to a
table; a batch query reads the table and computes the windows of the late rows.

    python docs/examples/late_rows.py
"""
import os
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa

# One file per micro-batch: (user, time on 2024-01-01, amount).
FILES = [
    [("alice", "12:00:10", 1.0), ("alice", "12:00:14", 2.0)],
    [("alice", "12:00:17", 3.0), ("alice", "12:00:25", 4.0)],
    [("alice", "12:00:31", 5.0)],
    [("alice", "12:00:15", 9.0), ("alice", "12:00:45", 6.0)],    # 12:00:15 comes late
]


def write_files(source):
    os.makedirs(source)
    for i, rows in enumerate(FILES):
        path = os.path.join(source, f"{i:03d}.csv")
        with open(path, "w") as f:
            f.write("user,ts,amount\n")
            f.writelines(f"{user},2024-01-01 {t},{amount}\n" for user, t, amount in rows)
        # The file source reads files in order of modification time, and files written at once
        # may share one: distinct times keep the order of their names (which rows are late depends
        # on it; docs/streaming.md, "Testing a stream with files").
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))


def run_example(spark, work, table="late_rows"):
    """Runs the example in `spark` (whose session time zone must be UTC) under `work`."""
    source, sink, checkpoint = (os.path.join(work, d) for d in ("purchases", "windows", "checkpoint"))
    write_files(source)
    spark.conf.set("spark.sql.slidingWindow.lateRows.table", table)   # read when the query starts
    try:
        purchases = (spark.readStream
                     .schema("user STRING, ts TIMESTAMP, amount DOUBLE")
                     .option("header", True)
                     .option("maxFilesPerTrigger", 1)                  # one file per micro-batch
                     .csv(source))
        windows = (purchases
                   .withWatermark("ts", "5 seconds")
                   .groupBy("user", swa.sliding_window("ts", "10 seconds").alias("w"))
                   .agg(F.count("*").alias("n"), F.sum("amount").alias("total")))
        query = (windows.writeStream
                 .outputMode("append")
                 .format("parquet")
                 .option("path", sink)
                 .option("checkpointLocation", checkpoint)
                 .trigger(availableNow=True)
                 .start())
        query.awaitTermination()
    finally:
        spark.conf.unset("spark.sql.slidingWindow.lateRows.table")

    spark.sql(f"REFRESH TABLE {table}")     # where this session has read the table before
    late = spark.read.table(table)
    print("late rows:")
    for r in late.orderBy("ts").collect():
        print(f"  {r.user} {r.ts:%H:%M:%S} amount={r.amount} late_batch_id={r.late_batch_id} "
              f"late_watermark={r.late_watermark:%H:%M:%S} {r.late_operator} {r.late_reason}")

    # Reprocessing: the windows of the late rows, by the query's own aggregation, in batch.
    print("their windows:")
    for r in (late.groupBy("user", swa.sliding_window("ts", "10 seconds").alias("w"))
              .agg(F.count("*").alias("n"), F.sum("amount").alias("total")).orderBy("w").collect()):
        print(f"  {r.user} [{r.w.start:%H:%M:%S}, {r.w.end:%H:%M:%S}] n={r.n} total={r.total}")


def main():
    with tempfile.TemporaryDirectory() as work:   # a new input folder, sink, checkpoint and warehouse
        spark = (swa.configure(SparkSession.builder.master("local[2]"))
                 .config("spark.ui.showConsoleProgress", "false")
                 .config("spark.sql.session.timeZone", "UTC")
                 .config("spark.sql.shuffle.partitions", "2")                          # state stores
                 .config("spark.sql.warehouse.dir", os.path.join(work, "warehouse"))   # where late_rows goes
                 .getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        run_example(spark, work)
        spark.stop()


if __name__ == "__main__":
    main()
