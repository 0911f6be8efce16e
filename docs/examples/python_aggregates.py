"""The examples of docs/python-aggregates.md, run as they are printed there.

A Python aggregate over sliding windows, and a grouped map over each window's rows, written as
the windowed aggregation collecting the values (collect_list) and Python over the arrays; a pandas
aggregate over a trailing frame in a batch query, which Spark computes itself; and the same
frame on a stream, with collect_list over the frame.

    python docs/examples/python_aggregates.py
"""
import json
import os
import tempfile

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.functions import pandas_udf
from pyspark.sql.types import DoubleType

import sliding_window_agg as swa

# (card, seconds after 12:00:00 on 2024-01-01, amount)
PAYMENTS = [("c1", 0, 10.0), ("c1", 4, 30.0), ("c1", 7, 20.0), ("c1", 15, 50.0), ("c2", 3, 5.0)]


@pandas_udf(DoubleType())
def median(amounts: pd.Series) -> pd.Series:
    """A pandas function over arrays: each window's amounts in, its median out."""
    return amounts.apply(lambda a: float(pd.Series(a).median()))


@pandas_udf(DoubleType())
def mean(amount: pd.Series) -> float:
    """A pandas aggregate (Series to scalar)."""
    return float(amount.mean())


@F.udf(DoubleType())
def last_minus_first(rows):
    """A Python function of a window's rows, as applyInPandas would get them."""
    rows = sorted(rows, key=lambda r: r.ts)
    return rows[-1].amount - rows[0].amount


def hms(t):
    """A time of day to the microsecond (a right window starts 1 microsecond after its row)."""
    return f"{t:%H:%M:%S.%f}"


def payments(spark):
    return spark.createDataFrame(PAYMENTS, "card STRING, seconds INT, amount DOUBLE") \
        .selectExpr("card", "timestamp_seconds(1704110400 + seconds) AS ts", "amount")


def sliding_windows(spark):
    windows = (payments(spark)
               .groupBy("card", swa.sliding_window("ts", "10 seconds").alias("w"))
               .agg(F.collect_list("amount").alias("amounts"),
                    F.collect_list(F.struct("ts", "amount")).alias("rows"))
               .select("card", "w", median("amounts").alias("median"),
                       last_minus_first("rows").alias("change")))
    print("sliding windows of 10 seconds:")
    for r in windows.orderBy("card", "w.start").collect():
        print(f"  {r.card} [{hms(r.w.start)}, {hms(r.w.end)}] median {r.median} change {r.change}")


def trailing_batch(spark):
    last_10s = swa.trailing_window("card", "ts", "10 seconds")
    rows = payments(spark).select("card", "ts", mean("amount").over(last_10s).alias("mean_10s"))
    print("trailing 10 seconds, batch:")
    for r in rows.orderBy("card", "ts").collect():
        print(f"  {r.card} {r.ts:%H:%M:%S} mean {r.mean_10s}")


def trailing_stream(spark, work):
    source = os.path.join(work, "in")
    os.makedirs(source)
    with open(os.path.join(source, "000.json"), "w") as f:
        f.writelines(json.dumps({"card": c, "ts": f"2024-01-01 12:00:{s:02d}", "amount": a}) + "\n"
                     for c, s, a in PAYMENTS)
    last_10s = swa.trailing_window("card", "ts", "10 seconds")
    features = (spark.readStream.schema("card STRING, ts TIMESTAMP, amount DOUBLE").json(source)
                .withWatermark("ts", "0 seconds")
                .select("card", "ts", F.collect_list("amount").over(last_10s).alias("amounts"))
                .select("card", "ts", median("amounts").alias("median_10s")))
    emitted = []
    spark.conf.set("spark.sql.slidingWindow.closeAtEndOfInput", "true")  # the input ends here
    try:
        (features.writeStream.outputMode("append")
         .foreachBatch(lambda df, _: emitted.extend(df.collect()))
         .option("checkpointLocation", os.path.join(work, "ck")).trigger(availableNow=True).start()
         .awaitTermination())
    finally:
        spark.conf.unset("spark.sql.slidingWindow.closeAtEndOfInput")
    print("trailing 10 seconds, stream:")
    for r in sorted(emitted, key=lambda r: (r.card, r.ts)):
        print(f"  {r.card} {r.ts:%H:%M:%S} median {r.median_10s}")


def run_example(spark, work):
    """Runs the examples in `spark` (whose session time zone must be UTC) under `work`."""
    sliding_windows(spark)
    trailing_batch(spark)
    trailing_stream(spark, work)


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
