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


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
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
