"""A streaming trailing windows query with a late-rows table, run in its own process so that a
test can kill it (tests/test_late_rows.py).

Usage: python late_rows_child.py SOURCE CHECKPOINT WAREHOUSE OUTPUT [--fail-once] [--delta PATH JARS]

The trailing harness's query (trailing_harness.trailing_query) over the files of SOURCE
(streaming_harness.write_files), run `availableNow` in append mode into a Parquet file sink at
OUTPUT (exactly once, by its own log), with `spark.sql.slidingWindow.lateRows.table` naming
`late_rows` of a warehouse at WAREHOUSE. The session's in-memory catalog starts empty in every
process: the table is the one the checkpoint records.

With --fail-once, Spark retries a failed task once (master `local[2,2]`), and the sink is a
foreachBatch that reads each micro-batch's rows and then fails the first attempt of every task,
after the operator has written its late rows and committed its state: the retry writes them again.

With --delta PATH JARS (JARS: Delta Lake's, comma separated, for spark.jars), a second query then streams the late-rows table
into the Delta table at PATH (Delta's own exactly-once sink, its checkpoint PATH_checkpoint), as
docs/streaming.md's "Late rows in a Delta table" does: each run copies the late rows of the
micro-batches committed since the last.
"""
import sys

from pyspark.sql import SparkSession

import sliding_window_agg as swa


def main() -> None:
    from streaming_harness import VERIFY_ROW_COUNT_CONF, read_stream
    from trailing_harness import trailing_query

    source, checkpoint, warehouse, output = sys.argv[1:5]
    fail_once = "--fail-once" in sys.argv[5:]
    delta, delta_jars = sys.argv[sys.argv.index("--delta") + 1:][:2] if "--delta" in sys.argv else (None, None)
    builder = SparkSession.builder
    if delta:  # Delta's extension and catalog, as Delta's users configure them; configure() adds ours
        builder = (builder.config("spark.jars", delta_jars)
                   .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
                   .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                   .config("spark.databricks.delta.snapshotPartitions", "2"))
    spark = (swa.configure(builder.master("local[2,2]" if fail_once else "local[2]"))
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "3")
             .config("spark.sql.warehouse.dir", warehouse)
             .config("spark.sql.slidingWindow.lateRows.table", "late_rows")
             .config(VERIFY_ROW_COUNT_CONF, "true")
             # A kill while Spark writes micro-batch 0's offsets leaves Spark's temporary file in
             # `offsets/`, and Spark 4.1 and later then refuse the checkpoint as not empty
             # (STATE_STORE_CHECKPOINT_LOCATION_NOT_EMPTY; the same without the extension). With
             # the check off, the restart runs micro-batch 0 from the start, as Spark 4.0 did.
             .config("spark.sql.streaming.verifyCheckpointDirectoryEmptyOnStart", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    writer = trailing_query(read_stream(spark, source)).writeStream.outputMode("append")
    if fail_once:
        def consume_then_fail_once(rows):
            from pyspark import TaskContext

            n = sum(1 for _ in rows)  # the operator's output read to its end: its task completes
            if TaskContext.get().attemptNumber() == 0:
                raise RuntimeError("the first attempt of every task fails after its input")
            yield n

        writer = writer.foreachBatch(lambda df, _: df.rdd.mapPartitions(consume_then_fail_once).sum())
    else:
        writer = writer.format("parquet").option("path", output)
    query = writer.option("checkpointLocation", checkpoint).trigger(availableNow=True).start()
    query.awaitTermination()
    if delta:
        spark.conf.unset("spark.sql.slidingWindow.lateRows.table")  # a query with windows would claim it
        (spark.readStream.table("late_rows")
         .writeStream.format("delta")
         .option("checkpointLocation", delta + "_checkpoint")
         .trigger(availableNow=True)
         .start(delta)
         .awaitTermination())
    spark.stop()


if __name__ == "__main__":
    main()
