"""The main example: ``python -m sliding_window_agg.demo``.

Starts a local Spark session with the extension, loads a few embedded events and prints their
10-second sliding windows, from SQL and from the DataFrame API. Its output is the tables only:
the driver logs errors only (demo-log4j2.properties, given to the JVM when it starts, since
Spark warns before any session exists) and shows no console progress bar (`_quiet`, which the
example scripts of docs/examples/ use too).
"""
from __future__ import annotations

import datetime as dt

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from . import configure, sliding_window
from ._quiet import quiet_logging

EVENTS = [
    # user, seconds after 12:00:00, amount  (the contract's example for alice)
    ("alice", 10, 1.0),
    ("alice", 14, 2.0),
    ("alice", 17, 3.0),
    ("alice", 25, 4.0),
    ("alice", 31, 5.0),
    ("bob", 3, 10.0),
    ("bob", 5, 20.0),
    ("bob", 30, 30.0),
]


def events(spark: SparkSession):
    base = dt.datetime(2024, 1, 1, 12, 0, 0)
    rows = [(u, base + dt.timedelta(seconds=s), a) for u, s, a in EVENTS]
    return spark.createDataFrame(rows, "user string, ts timestamp, amount double")


def main() -> None:
    spark = (
        quiet_logging(configure(SparkSession.builder.master("local[2]").appName("sliding-window-agg demo")))
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    events(spark).createOrReplaceTempView("events")

    print("SQL: SELECT user, sliding_window(ts, '10 seconds') AS w, count(*), sum(amount) ...")
    spark.sql(
        """
        SELECT user, sliding_window(ts, '10 seconds') AS w, count(*) AS n, sum(amount) AS total
        FROM events
        GROUP BY user, sliding_window(ts, '10 seconds')
        ORDER BY user, w.start
        """
    ).show(truncate=False)

    print("PySpark: df.groupBy('user', sliding_window('ts', '10 seconds')).agg(...)")
    (
        spark.table("events")
        .groupBy("user", sliding_window("ts", "10 seconds"))
        .agg(F.count("*").alias("n"), F.max("amount").alias("max"), F.collect_list("amount").alias("amounts"))
        .orderBy("user", "sliding_window.start")
        .show(truncate=False)
    )
    spark.stop()


if __name__ == "__main__":
    main()
