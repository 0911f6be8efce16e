"""The streaming example of docs/trailing-windows.md, run as it is printed there.

Card transactions arrive as CSV files in a folder, one file per micro-batch. A streaming query
gives every transaction the card's count over the last 10 minutes and the last hour and its total
over the last hour, once the watermark passes its time; the last file's rows are emitted at the
end of the run (closeAtEndOfInput). The same query in SQL, and the same query in batch over the
rows the stream kept, give the same rows.

    python docs/examples/trailing_streaming.py
"""
import os
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa

# One file per micro-batch: (card, time on 2024-01-01, amount).
FILES = [
    [("c1", "12:00:00", 10.0), ("c1", "12:04:00", 20.0), ("c2", "12:05:00", 5.0)],
    [("c1", "12:09:00", 30.0), ("c2", "12:20:00", 7.0), ("c1", "12:30:00", 40.0)],
    [("c1", "12:03:00", 99.0), ("c1", "13:01:00", 50.0)],    # 12:03 comes late
]


def write_files(source):
    os.makedirs(source)
    for i, rows in enumerate(FILES):
        path = os.path.join(source, f"{i:03d}.csv")
        with open(path, "w") as f:
            f.write("card,ts,amount\n")
            f.writelines(f"{card},2024-01-01 {t},{amount}\n" for card, t, amount in rows)
        # The file source reads files in order of modification time, and files written at once
        # may share one: distinct times keep the order of their names (which rows are late depends
        # on it; docs/streaming.md, "Testing a stream with files").
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))


def transactions(spark, source):
    return (spark.readStream
            .schema("card STRING, ts TIMESTAMP, amount DOUBLE")
            .option("header", True)
            .option("maxFilesPerTrigger", 1)                  # one file per micro-batch
            .csv(source)
            .withWatermark("ts", "1 minute"))                # rows wait a minute for late ones


def features(events):
    last_10m = swa.trailing_window("card", "ts", "10 minutes")
    last_hour = swa.trailing_window("card", "ts", "1 hour")
    return events.select(
        "*",
        F.count("*").over(last_10m).alias("n_10m"),
        F.count("*").over(last_hour).alias("n_1h"),
        F.sum("amount").over(last_hour).alias("total_1h"))


SQL = """
SELECT card, ts, amount,
       count(*)    OVER (PARTITION BY card ORDER BY ts RANGE BETWEEN INTERVAL 10 MINUTES PRECEDING AND CURRENT ROW) AS n_10m,
       count(*)    OVER last_hour AS n_1h,
       sum(amount) OVER last_hour AS total_1h
FROM transactions
WINDOW last_hour AS (PARTITION BY card ORDER BY ts RANGE BETWEEN INTERVAL 1 HOUR PRECEDING AND CURRENT ROW)
"""


def run(spark, frame, checkpoint, printing):
    """Runs `frame` to the end of its input; returns its rows, printing each micro-batch's."""
    emitted = []

    def each_micro_batch(batch, batch_id):
        rows = sorted(batch.collect(), key=lambda r: (r.ts, r.card))
        emitted.extend(rows)
        if printing:
            print(f"micro-batch {batch_id}: {len(rows)} row(s)")
            for r in rows:
                print(f"  {r.card} {r.ts:%H:%M} amount={r.amount:5.1f} "
                      f"n_10m={r.n_10m} n_1h={r.n_1h} total_1h={r.total_1h:5.1f}")

    query = (frame.writeStream
             .outputMode("append")                           # each row once, with final values
             .foreachBatch(each_micro_batch)
             .option("checkpointLocation", checkpoint)
             .trigger(availableNow=True)                      # the files there, then stop
             .start())
    query.awaitTermination()
    if printing:
        dropped = sum(p["stateOperators"][0]["numRowsDroppedByWatermark"] for p in query.recentProgress)
        print(f"late rows dropped: {dropped}")
    return emitted


def run_example(spark, work):
    """Runs the example in `spark` (whose session time zone must be UTC) under `work`."""
    source = os.path.join(work, "transactions")
    write_files(source)
    spark.conf.set("spark.sql.slidingWindow.closeAtEndOfInput", "true")    # emit the last rows too
    try:
        streamed = run(spark, features(transactions(spark, source)), os.path.join(work, "chk"), True)

        transactions(spark, source).createOrReplaceTempView("transactions")
        in_sql = run(spark, spark.sql(SQL), os.path.join(work, "chk_sql"), False)
    finally:
        spark.conf.unset("spark.sql.slidingWindow.closeAtEndOfInput")
    print(f"SQL gives the same rows: {sorted(in_sql) == sorted(streamed)}")

    # The same query in batch, over the rows the stream kept (the late row left out).
    kept = spark.createDataFrame([(r.card, r.ts, r.amount) for r in streamed], "card STRING, ts TIMESTAMP, amount DOUBLE")
    in_batch = features(kept).collect()
    print(f"batch gives the same rows: {sorted(in_batch) == sorted(streamed)}")


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
