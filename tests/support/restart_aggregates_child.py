"""Restarts the query of aggregates_harness.py in a JVM of its own, after planning a batch query
with the same aggregate functions (so that the names Spark generates per JVM have moved on).

Usage: python restart_aggregates_child.py SOURCE CHECKPOINT CALLS_JSON

Prints the windows the run emitted as one JSON list on its last line.
"""
import json
import sys

from pyspark.sql import SparkSession

import aggregates_harness as h
import sliding_window_agg as swa
from streaming_harness import HDFS, run_query, state_store


def main() -> None:
    source, checkpoint, calls = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    spark = swa.configure(SparkSession.builder.master("local[2]")
                          .config("spark.sql.shuffle.partitions", "2")
                          .config("spark.sql.session.timeZone", "UTC")
                          .config("spark.ui.enabled", "false")
                          .config("spark.ui.showConsoleProgress", "false")).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    h.reference(spark, h.generate()[:1], ["count_if(w > 3)"] + calls)  # planned first
    with state_store(spark, HDFS):
        run = run_query(spark, source, checkpoint, h.query(calls), "append", read=h.read)
    print(json.dumps([h.saved(r) for _, r in run.rows]))
    spark.stop()


if __name__ == "__main__":
    main()
