"""Streams of the extension's window kinds from a Kafka topic, in a process of its own with
Spark's Kafka connector (and Delta Lake's jars for the Delta sink) on its classpath
(tests/test_kafka.py).

Usage: python kafka_child.py BOOTSTRAP WORKDIR JARS [--kinds sliding,batch,trailing]
           [--sink kafka|delta] [--rows FILE] [--close] [--kill-at N] [--report] [--per-trigger N]

Topics are named after WORKDIR's folder (`<folder>-events`, ...): tests share a broker. One run of
each kind's query, all on the same topic `events`, each `availableNow` from its own
checkpoint (WORKDIR/chk-<kind>), --per-trigger records per micro-batch (150 by default):

- sliding: `sliding_window` groups; batch: `batch_window` groups, rows applied in their Kafka
  offset's order (the arrival order of a key: one key, one partition); trailing: a trailing
  window's count and sum over each row (`trailing_window`, the frame `RANGE BETWEEN ... PRECEDING
  AND CURRENT ROW`).
- sink kafka: append mode, into the topic `out-<kind>` as JSON. sink delta (sliding only): update
  mode, each micro-batch upserted with `MERGE` into the Delta table WORKDIR/delta, by the group
  key and the window's bounds, each micro-batch's id appended to WORKDIR/merged.txt once merged.

--rows first writes FILE's rows (JSON lines) to `events`, keyed by `k`. --close sets
closeAtEndOfInput (every window emitted at the end of the input). --kill-at N SIGKILLs the
driver (this process and its JVM, the process group the test started) mid-stream: with the
Kafka sink while micro-batch N of the first kind writes (or, if it commits first, as N + 1
starts),
with the Delta sink once micro-batch N is merged, before Spark logs its commit. --report prints,
as one JSON object per kind, the rows read back from the sink, those of the same query in batch
over the topic's rows (trailing windows: Spark's own Window), each row's partition and offset,
the query's micro-batches and the rows it dropped as late."""
import argparse
import json
import os
import signal
import threading
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa
from streaming_harness import progress_dict

SCHEMA = "k STRING, ts TIMESTAMP, v BIGINT, id BIGINT"
# JSON's default timestamp format has milliseconds: a window's bounds have microseconds.
MICROS = {"timestampFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX"}
SIZE = "10 seconds"
# More than the event times of two partitions read by one micro-batch drift apart: a micro-batch
# takes the same share of each partition's new records, and one partition's may end seconds later.
DELAY = "1 minute"
WINDOWS = "k STRING, w STRUCT<start: TIMESTAMP, end: TIMESTAMP>, n BIGINT, total BIGINT, ids ARRAY<BIGINT>"
OUTPUT = {"sliding": WINDOWS, "batch": WINDOWS, "trailing": "k STRING, ts TIMESTAMP, v BIGINT, id BIGINT, "
                                                             "n BIGINT, total BIGINT"}
TRAILING_BATCH = "spark.sql.slidingWindow.trailingWindows.batch"
DELTA_TABLE = ("k STRING, start TIMESTAMP, end TIMESTAMP, n BIGINT, total BIGINT, ids ARRAY<BIGINT>")


def windows(df, kind: str):
    """The kind's query on rows of SCHEMA with their Kafka `offset`."""
    if kind == "trailing":
        last = swa.trailing_window("k", "ts", SIZE)
        return df.select("k", "ts", "v", "id", F.count("*").over(last).alias("n"), F.sum("v").over(last).alias("total"))
    group = (swa.sliding_window("ts", SIZE) if kind == "sliding" else swa.batch_window("ts", SIZE, "offset"))
    return (df.groupBy("k", group.alias("w"))
            .agg(F.count("*").alias("n"), F.sum("v").alias("total"), F.collect_list("id").alias("ids")))


def as_rows(df, kind: str):
    if kind == "trailing":
        return [{"id": r.id, "k": r.k, "ts": r.ts.isoformat(), "n": r.n, "total": r.total} for r in df.collect()]
    return [{"k": r.k, "start": r.w.start.isoformat(), "end": r.w.end.isoformat(), "n": r.n, "total": r.total,
             "ids": sorted(r.ids)} for r in df.collect()]


def parsed(df, schema: str, *keep: str):
    return df.select(F.from_json(F.col("value").cast("string"), schema, MICROS).alias("e"), *keep).select("e.*", *keep)


def kill_driver() -> None:
    """kill -9 of the driver: this process and its JVM (spark-submit's child) at once."""
    os.killpg(os.getpgid(0), signal.SIGKILL)


def kill_while_writing(spark, checkpoint: str, batch: int) -> None:
    """Kills the driver while micro-batch `batch` writes, before it commits: once one task of a
    running stage of `spark.sql.shuffle.partitions` tasks (the stateful operator's, which writes
    to the sink) has finished, so that some of its rows are in the sink. If the micro-batch
    commits first, the next one is killed once it is planned."""
    tracker, tasks = spark.sparkContext.statusTracker(), int(spark.conf.get("spark.sql.shuffle.partitions"))

    def logged(log: str, n: int) -> bool:
        return os.path.exists(os.path.join(checkpoint, log, str(n)))

    def written() -> bool:
        stages = filter(None, map(tracker.getStageInfo, tracker.getActiveStageIds()))
        return any(s.numTasks == tasks and s.numCompletedTasks > 0 for s in stages)

    def watch():
        while not logged("offsets", batch):
            time.sleep(0.02)
        while not logged("commits", batch):
            if written():
                kill_driver()
            time.sleep(0.01)
        while not logged("offsets", batch + 1):
            time.sleep(0.02)
        kill_driver()
    threading.Thread(target=watch, daemon=True).start()


def merge_into(table: str, merged: str, kill_at):
    """foreachBatch: the micro-batch's windows upserted by (k, start, end), idempotent when Spark
    runs the micro-batch again after a failure."""
    def upsert(batch, batch_id):
        # MERGE reads its source more than once: one run of the stateful plan, persisted.
        source = batch.select("k", "w.start", "w.end", "n", "total", "ids").persist()
        source.createOrReplaceTempView("window_updates")
        batch.sparkSession.sql(f"""
            MERGE INTO delta.`{table}` t USING window_updates s
            ON t.k = s.k AND t.start = s.start AND t.end = s.end
            WHEN MATCHED THEN UPDATE SET *
            WHEN NOT MATCHED THEN INSERT *""")
        source.unpersist()
        with open(merged, "a") as f:
            f.write(f"{batch_id}\n")
        if batch_id == kill_at:
            kill_driver()
    return upsert


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("bootstrap")
    parser.add_argument("work")
    parser.add_argument("jars")
    parser.add_argument("--kinds", default="sliding")
    parser.add_argument("--sink", default="kafka", choices=["kafka", "delta"])
    parser.add_argument("--rows")
    parser.add_argument("--close", action="store_true")
    parser.add_argument("--kill-at", type=int)
    parser.add_argument("--report", action="store_true")
    parser.add_argument("--per-trigger", type=int, default=150, help="maxOffsetsPerTrigger")
    args = parser.parse_args()
    kinds, work, bootstrap = args.kinds.split(","), args.work, args.bootstrap

    def topic(name: str) -> str:
        return f"{os.path.basename(work)}-{name}"  # the test's own topics on a broker tests share

    builder = (SparkSession.builder.master("local[2]").config("spark.jars", args.jars)
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "3")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.slidingWindow.closeAtEndOfInput", str(args.close).lower()))
    if args.sink == "delta":
        # Delta's extension first; configure() appends the project's to spark.sql.extensions.
        builder = (builder.config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
                   .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                   # A small table's log: 2 tasks to rebuild its snapshot, not 50 (Delta's own tests' setting).
                   .config("spark.databricks.delta.snapshotPartitions", "2"))
    spark = swa.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    kafka = {"kafka.bootstrap.servers": bootstrap}
    if args.rows:
        rows = spark.read.schema(SCHEMA).json(args.rows)
        (rows.selectExpr("k AS key", "to_json(struct(*)) AS value").write.format("kafka").options(**kafka)
         .option("topic", topic("events")).save())

    table, merged = os.path.join(work, "delta"), os.path.join(work, "merged.txt")
    if args.sink == "delta":
        spark.sql(f"CREATE TABLE IF NOT EXISTS delta.`{table}` ({DELTA_TABLE}) USING delta")
    events = parsed(spark.readStream.format("kafka").options(**kafka).option("subscribe", topic("events"))
                    .option("startingOffsets", "earliest").option("maxOffsetsPerTrigger", args.per_trigger).load(),
                    SCHEMA, "offset")
    queries = []
    for kind in kinds:
        checkpoint = os.path.join(work, f"chk-{kind}")
        if args.kill_at is not None and args.sink == "kafka" and not queries:
            kill_while_writing(spark, checkpoint, args.kill_at)
        out = windows(events.withWatermark("ts", DELAY), kind)
        if args.sink == "kafka":
            key = "CAST(id AS STRING)" if kind == "trailing" else "k"
            writer = (out.select(F.expr(key).alias("key"), F.to_json(F.struct("*"), MICROS).alias("value"))
                      .writeStream.format("kafka").options(**kafka).option("topic", topic(f"out-{kind}")).outputMode("append"))
        else:
            writer = out.writeStream.outputMode("update").foreachBatch(merge_into(table, merged, args.kill_at))
        queries.append(writer.option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
    for query in queries:
        query.awaitTermination()
    if not args.report:
        spark.stop()
        return

    rows = parsed(spark.read.format("kafka").options(**kafka).option("subscribe", topic("events")).load(),
                  SCHEMA, "partition", "offset").cache()
    spark.conf.set(TRAILING_BATCH, "false")  # the batch reference of trailing windows: Spark's own Window
    report = {"arrival": {r.id: [r.partition, r.offset] for r in rows.collect()},
              "extensions": spark.conf.get("spark.sql.extensions")}
    for kind, query in zip(kinds, queries):
        if args.sink == "kafka":
            emitted = parsed(spark.read.format("kafka").options(**kafka).option("subscribe", topic(f"out-{kind}")).load(),
                             OUTPUT[kind])
        else:
            emitted = spark.read.format("delta").load(table).select("k", F.struct("start", "end").alias("w"),
                                                                    "n", "total", "ids")
        progress = [progress_dict(p) for p in query.recentProgress]
        report[kind] = {"stream": as_rows(emitted, kind), "batch": as_rows(windows(rows, kind), kind),
                        "batches": [p["batchId"] for p in progress if p["numInputRows"] > 0],
                        "dropped": sum(o.get("numRowsDroppedByWatermark", 0)
                                       for p in progress for o in p["stateOperators"])}
    print(json.dumps(report))
    spark.stop()


if __name__ == "__main__":
    main()
