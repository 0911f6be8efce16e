"""Output modes and watermarks of the streaming operator beyond the differential tests."""
from __future__ import annotations

import json
import os

import pytest
from pyspark.errors import StreamingQueryException
from pyspark.sql import functions as F

import sliding_window_agg as swa
from error_conditions import assert_condition, run_time_cause
from streaming_harness import progress_dict

SEC = 1_000_000


def write_batches(folder, batches):
    os.makedirs(folder)
    for i, rows in enumerate(batches):
        path = os.path.join(folder, f"{i:03d}.json")
        with open(path, "w") as f:
            f.writelines(json.dumps({"k": k, "t": t, "v": v}) + "\n" for k, t, v in rows)
        os.utime(path, (1_000_000 + i, 1_000_000 + i))


def run(spark, tmp_path, batches, mode, watermark=None):
    source = str(tmp_path / "in")
    write_batches(source, batches)
    stream = (spark.readStream.schema("k string, t long, v long").option("maxFilesPerTrigger", 1)
              .json(source).withColumn("ts", F.timestamp_micros("t")))
    if watermark:
        stream = stream.withWatermark("ts", watermark)
    out = []
    query = (stream.groupBy("k", swa.sliding_window("ts", "10 seconds"))
             .agg(F.count("*").alias("n"))
             .select("k", F.unix_micros("sliding_window.start").alias("s"),
                     F.unix_micros("sliding_window.end").alias("e"), "n")
             .writeStream.outputMode(mode)
             .foreachBatch(lambda df, b: out.extend((b, r.k, r.s, r.e, r.n) for r in df.collect()))
             .option("checkpointLocation", str(tmp_path / "ck")).trigger(availableNow=True).start())
    query.awaitTermination()
    return out, query


def test_update_mode_without_watermark_keeps_every_row(spark, tmp_path):
    """No watermark: nothing is late (even times before 1970), nothing is evicted."""
    out, query = run(spark, tmp_path, [[("a", -20 * SEC, 1)], [("a", -15 * SEC, 1)],
                                       [("a", -21 * SEC, 1)]], "update")
    last = {}
    for b, k, s, e, n in out:
        last[(k, s, e)] = n
    assert last[(("a", -25 * SEC, -15 * SEC))] == 3  # left window of -15s holds all three rows
    ops = [progress_dict(p)["stateOperators"][0] for p in query.recentProgress]
    dropped = sum(op["numRowsDroppedByWatermark"] for op in ops)
    removed = sum(op["numRowsRemoved"] for op in ops)
    assert (dropped, removed) == (0, 0)


def test_complete_mode_is_rejected(spark, tmp_path):
    with pytest.raises(StreamingQueryException) as e:
        run(spark, tmp_path, [[("a", SEC, 1)]], "complete", watermark="5 seconds")
    # The query fails with Spark's STREAM_FAILED, caused by the extension's error.
    assert_condition(run_time_cause(e.value), "WINDOW_STREAMING_COMPLETE_MODE", sql_state="42KDE")
    assert "WINDOW_STREAMING_COMPLETE_MODE" in str(e.value)


UNBOUNDED = "grows without bound"


# The WARN is the planning's (StreamingQueryLog), the same for both functions: batch_window's in make test.
@pytest.mark.parametrize("function", ["sliding_window", pytest.param("batch_window", marks=pytest.mark.slow)])
def test_update_mode_without_watermark_warns_once_per_run(spark, tmp_path, function):
    """Update mode without a watermark on the time column runs, and its state grows without
    bound: the driver says so in one WARN per run of the query (however many micro-batches it
    plans), with how to bound it; not when the time column has the watermark. A watermark on
    another column is named as not applying (docs/troubleshooting.md quotes the WARN)."""
    logger = "org.apache.spark.sql.slidingwindow.planning.StreamingQueryLog"
    capture = spark._jvm.org.apache.spark.sql.slidingwindow.LogCapture.of(logger)
    source = str(tmp_path / "in")
    write_batches(source, [[("a", 10 * SEC, 1)], [("a", 14 * SEC, 1)], [("a", 17 * SEC, 1)]])

    def run_with(name, watermark_on):
        stream = (spark.readStream.schema("k string, t long, v long").option("maxFilesPerTrigger", 1)
                  .json(source).withColumn("ts", F.timestamp_micros("t"))
                  .withColumn("other", F.timestamp_micros("t")))
        if watermark_on:
            stream = stream.withWatermark(watermark_on, "5 seconds")
        query = (stream.groupBy("k", getattr(swa, function)("ts", "10 seconds")).count()
                 .writeStream.format("noop").outputMode("update")
                 .option("checkpointLocation", str(tmp_path / name)).trigger(availableNow=True).start())
        query.awaitTermination()
        assert len(query.recentProgress) >= 3
        return [line for line in capture.lines() if UNBOUNDED in line]

    try:
        warnings = run_with("none", None)
        assert len(warnings) == 1, capture.lines()
        warning = warnings[0]
        assert warning.startswith("WARN Streaming query ")
        assert (f"the {function} aggregation runs in the Update output mode without a watermark "
                f"on its time column ts") in warning
        assert "its state grows without bound" in warning
        assert 'To bound it, put a watermark on the time column before the aggregation: ' \
               'withWatermark("ts", delay)' in warning
        assert "does not apply" not in warning

        assert run_with("on-time", "ts") == warnings  # the watermark on the time column: no WARN

        warnings = run_with("on-other", "other")
        assert len(warnings) == 2
        assert "(The watermark on other does not apply to it.)" in warnings[1]
    finally:
        capture.close()


OUTPUT_COLUMNS_WARNING = "The output columns are expected to the same"


@pytest.mark.every_spark
def test_foreach_batch_keeps_the_output_columns_of_the_analyzed_plan(spark, tmp_path):
    """foreachBatch (and checkpoint()) wrap a micro-batch in Spark's LogicalRDD, which compares
    the names and types of the analyzed plan's output with the optimized plan's, and WARNs when
    they differ. The windowed aggregation replaces the analyzed Aggregate after analysis: its
    output keeps the Aggregate's names, ids and types, nested nullability included (Spark 4.3 makes
    a streaming Aggregate's output nullable), so no micro-batch of any window kind warns, as none
    of Spark's window() does; the rows are those of the queries run before."""
    source = str(tmp_path / "in")
    write_batches(source, [[("a", 1 * SEC, 1), ("b", 2 * SEC, 5), ("a", 4 * SEC, 2)],
                           [("a", 12 * SEC, 3)], [("a", 40 * SEC, 0)]])
    stream = (spark.readStream.schema("k string, t long, v long").option("maxFilesPerTrigger", 1)
              .json(source).withColumn("ts", F.timestamp_micros("t")).withWatermark("ts", "0 seconds"))
    windowed = {
        function: stream.groupBy("k", getattr(swa, function)("ts", "10 seconds"))
        .agg(F.count("*").alias("n"), F.sum("v").alias("s"))
        for function in ("sliding_window", "batch_window")}
    trailing = stream.select("k", "t", F.count("*").over(swa.trailing_window(["k"], "ts", "10 seconds")).alias("n"))

    def rows_of(name, query):
        out = []

        def sink(df, _):
            # The window column as it is: a column computed from it above the aggregation would
            # hide the struct's nullability from the comparison.
            if "k" in df.columns and len(df.columns) == 4:
                w = df.columns[1]
                df = df.select("k", F.unix_micros(f"{w}.start"), F.unix_micros(f"{w}.end"), "n", "s")
            out.extend(tuple(r) for r in df.collect())

        run = (query.writeStream.outputMode("append").foreachBatch(sink)
               .option("checkpointLocation", str(tmp_path / name)).trigger(availableNow=True).start())
        run.awaitTermination()
        assert len(run.recentProgress) >= 3
        return sorted(out, key=repr)

    capture = spark._jvm.org.apache.spark.sql.slidingwindow.LogCapture.of(
        "org.apache.spark.sql.execution.LogicalRDD")
    try:
        rows = {name: rows_of(name, q) for name, q in [*windowed.items(), ("trailing", trailing)]}
        warnings = [line for line in capture.lines() if OUTPUT_COLUMNS_WARNING in line]
    finally:
        capture.close()
    assert rows["sliding_window"] == sorted([
        ("a", -9 * SEC, 1 * SEC, 1, 1), ("b", -8 * SEC, 2 * SEC, 1, 5), ("a", -6 * SEC, 4 * SEC, 2, 3),
        ("a", 1 * SEC + 1, 11 * SEC + 1, 1, 2), ("a", 2 * SEC, 12 * SEC, 2, 5),
        ("a", 4 * SEC + 1, 14 * SEC + 1, 1, 3), ("a", 30 * SEC, 40 * SEC, 1, 0)], key=repr)
    assert rows["batch_window"] == sorted([
        ("a", 0, 10 * SEC, 2, 3), ("b", 0, 10 * SEC, 1, 5), ("a", 10 * SEC, 20 * SEC, 1, 3)], key=repr)
    assert rows["trailing"] == sorted([
        ("a", 1 * SEC, 1), ("b", 2 * SEC, 1), ("a", 4 * SEC, 2), ("a", 12 * SEC, 2), ("a", 40 * SEC, 1)], key=repr)
    assert warnings == []
