"""The PySpark side of docs/kafka-migration.md, run as it is printed there.

The records of the SlidingWindows Javadoc example (key A: values 1, 2, 3 at 8000, 9200 and
12400 ms; time difference 5000 ms), then one record at 20000 ms that moves time past every
window. Each mode prints what each micro-batch emitted.

    python docs/examples/kafka_migration.py
"""
import json
import os
import sys
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa

FILES = [[("A", 1, 8000), ("A", 2, 9200), ("A", 3, 12400)], [("A", 4, 20000)]]


def write_files(folder):
    os.makedirs(folder)
    for i, records in enumerate(FILES):
        path = os.path.join(folder, f"{i:03d}.json")
        with open(path, "w") as f:
            f.writelines(json.dumps({"key": k, "value": v, "ms": ms}) + "\n" for k, v, ms in records)
        # The file source reads files in order of modification time, and files written at once
        # may share one: distinct times keep the order of their names (which rows are late depends
        # on it; docs/streaming.md, "Testing a stream with files").
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))


def millis(ts):
    """A window bound as milliseconds since the epoch, to compare with Kafka's."""
    return f"{ts.timestamp() * 1000:.3f}"


def show(batch, batch_id, out=None):
    rows = sorted(batch.collect(), key=lambda r: r.sliding_window.start)
    print(f"  batch {batch_id}:" + ("" if rows else " -"), file=out)
    for r in rows:
        w = r.sliding_window
        print(f"    {r.key} [{millis(w.start)}, {millis(w.end)}] count={r['count']} {r.values}",
              file=out)


def records_stream(spark, source):
    return (spark.readStream.schema("key STRING, value INT, ms LONG")
            .option("maxFilesPerTrigger", 1).json(source)
            .withColumn("ts", F.timestamp_millis("ms")))


def run(spark, source, checkpoint, mode, grace, out=None):
    records = records_stream(spark, source)
    # SlidingWindows.ofTimeDifferenceAndGrace(ofMillis(5000), grace)
    windowed = (records
                .withWatermark("ts", grace)
                .groupBy("key", swa.sliding_window("ts", "5000 milliseconds"))
                .agg(F.count("*").alias("count"), F.collect_list("value").alias("values")))
    query = (windowed.writeStream
             .outputMode(mode)          # "append": emit on window close; "update": on update
             .foreachBatch(lambda batch, batch_id: show(batch, batch_id, out))
             .option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).start())
    query.awaitTermination()


def run_sql(spark, source, checkpoint, out=None):
    """The append-mode query with a 2-second grace, in SQL."""
    records_stream(spark, source).withWatermark("ts", "2 seconds") \
        .createOrReplaceTempView("records")
    windowed = spark.sql("""
        SELECT key, sliding_window(ts, '5000 milliseconds') AS sliding_window,
               count(*) AS count, collect_list(value) AS `values`
        FROM records
        GROUP BY key, sliding_window(ts, '5000 milliseconds')
    """)
    query = (windowed.writeStream.outputMode("append")
             .foreachBatch(lambda batch, batch_id: show(batch, batch_id, out))
             .option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).start())
    query.awaitTermination()


def run_example(spark, work, out=None):
    source = os.path.join(work, "records")
    write_files(source)
    for mode, grace in (("append", "2 seconds"), ("append", "0 seconds"), ("update", "2 seconds")):
        print(f"{mode}, grace {grace}:", file=out)
        run(spark, source, os.path.join(work, f"checkpoint-{mode}-{grace[0]}"), mode, grace, out)
    print("append, grace 2 seconds, in SQL:", file=out)
    run_sql(spark, source, os.path.join(work, "checkpoint-sql"), out)


def main():
    spark = (swa.configure(SparkSession.builder.master("local[2]"))
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory() as work:
        run_example(spark, work)
    spark.stop()


if __name__ == "__main__":
    main()
