"""Trailing windows on a stream that goes quiet (docs/streaming.md, "When the stream goes quiet";
docs/trailing-windows.md): with `spark.sql.slidingWindow.idleTimeout`, the rows Spark's own
watermark keeps waiting are emitted once the input has been quiet for the timeout; with
`spark.sql.slidingWindow.closeAtEndOfInput`, at the end of an AvailableNow run's input. Each row
is emitted once, with its frames' aggregates from their definition (the rows of its group whose
time is in [t - size, t]) and Spark's own batch `OVER` on the same rows; a row at or before what
an idle close emitted is late. The helpers are tests/support/quiet_stream.py's."""
from __future__ import annotations

import os
import threading
from typing import Dict, List, Sequence

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from quiet_stream import (AT_END_CONF, BASE, DELAY_TEXT, IDLE_CONF, SCHEMA, SEC, SIZE, SIZE_TEXT, Event, explain_text,
                          wait_for, write_file)
from streaming_harness import progress_dict, session_conf

OPERATOR = "trailingWindow"
TRAILING_BATCH_CONF = "spark.sql.slidingWindow.trailingWindows.batch"
FRAME = f"PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL {SIZE_TEXT} PRECEDING AND CURRENT ROW"


def trailing(events: DataFrame) -> DataFrame:
    """Spark's own SQL frame over `events` (k, t, v, ts): each row with its trailing count and sum."""
    return events.select("k", "t", "v", F.expr(f"count(*) OVER ({FRAME})").alias("n"),
                         F.expr(f"sum(v) OVER ({FRAME})").alias("total"))


def reference(events: Sequence[Event]) -> List[tuple]:
    """Each row with the count and sum of its group's rows whose time is in [t - size, t]."""
    return sorted((k, t, v, len(inside), sum(e[2] for e in inside))
                  for k, t, v in events
                  for inside in [[e for e in events if e[0] == k and t - SIZE <= e[1] <= t]])


def spark_batch(spark: SparkSession, events: Sequence[Event]) -> List[tuple]:
    """The same frames in a batch query, by Spark's own Window operator."""
    df = spark.createDataFrame(list(events), SCHEMA).withColumn("ts", F.timestamp_micros("t"))
    with session_conf(spark, TRAILING_BATCH_CONF, "false"):
        return sorted(tuple(r) for r in trailing(df).collect())


class Sink:
    """The rows a foreachBatch sink received, by micro-batch (a micro-batch run again replaces
    its rows, as an idempotent sink would)."""

    def __init__(self) -> None:
        self.batches: Dict[int, List[tuple]] = {}
        self.lock = threading.Lock()

    def __call__(self, batch: DataFrame, batch_id: int) -> None:
        rows = [tuple(r) for r in batch.collect()]
        with self.lock:
            self.batches[batch_id] = rows

    def rows(self) -> List[tuple]:
        with self.lock:
            return sorted(r for rows in self.batches.values() for r in rows)


def start(spark: SparkSession, folder: str, checkpoint: str, sink: Sink, trigger: dict = None, **options):
    events = (spark.readStream.schema(SCHEMA).options(**options).json(folder)
              .withColumn("ts", F.timestamp_micros("t")).withWatermark("ts", DELAY_TEXT))
    return (trailing(events).writeStream.outputMode("append").foreachBatch(sink)
            .option("checkpointLocation", checkpoint)
            .trigger(**(trigger or {"processingTime": "200 milliseconds"})).start())


def operator_progress(query) -> List[dict]:
    return [dict(op, batchId=p["batchId"]) for p in map(progress_dict, query.recentProgress)
            for op in p.get("stateOperators", []) if op.get("operatorName") == OPERATOR]


def total(query, name: str) -> int:
    return sum(int(op.get(name, op.get("customMetrics", {}).get(name, 0))) for op in operator_progress(query))


def spark_watermark(events: Sequence[Event]) -> int:
    """Spark's own watermark once every row is read, microseconds: rows after it wait."""
    return max(e[1] for e in events) - SEC


# Three keys; in the second file, read in a micro-batch of its own, a row that keeps Spark's
# watermark where it is, while the last row of the first, in a later second, waits.
FIRST = [("a", BASE, 1), ("a", BASE + SEC, 2), ("a", BASE + SEC, 3), ("a", BASE + 4 * SEC, 4),
         ("b", BASE + 500_000, 5), ("c", BASE + 2 * SEC, 7), ("b", BASE + 9 * SEC + 500_000, 6)]
SECOND = [("c", BASE + 8 * SEC + 700_000, 8)]


def test_an_idle_timeout_emits_the_rows_the_watermark_keeps_waiting(spark, tmp_path, provider):
    """Quiet for the timeout, every row is emitted, once, with its frames; the progress counts
    the rows Spark's own watermark kept waiting; a row at or before what was emitted is late, and
    dropped."""
    folder, checkpoint, sink = str(tmp_path / "in"), str(tmp_path / "cp"), Sink()
    events = FIRST + SECOND
    write_file(folder, "0.json", FIRST)
    write_file(folder, "1.json", SECOND)
    left_waiting = [e for e in events if e[1] > spark_watermark(events)]
    assert len(left_waiting) == 2, "the test's input must leave rows that Spark's watermark keeps waiting"
    want = reference(events)
    assert spark_batch(spark, events) == want
    with session_conf(spark, IDLE_CONF, "1s"):
        query = start(spark, folder, checkpoint, sink, maxFilesPerTrigger=1)
    try:
        assert wait_for(lambda: len(sink.rows()) >= len(want)), f"emitted {sink.rows()}, expected {want}"
        assert sink.rows() == want
        # The progress of the micro-batch that emitted the last row comes after its sink call.
        assert wait_for(lambda: total(query, "numRowsClosedWhileIdle") >= len(left_waiting))
        assert total(query, "numRowsClosedWhileIdle") == len(left_waiting)
        assert "whenQuiet=idle timeout 1s" in explain_text(query)

        # Rows at or before what the idle close emitted are late; a later one is emitted.
        late = [("b", BASE + 9 * SEC, 100), ("a", BASE + 9 * SEC + 500_000, 101)]
        after = ("a", BASE + 30 * SEC, 102)
        write_file(folder, "2.json", late + [after])
        assert wait_for(lambda: total(query, "numRowsDroppedByWatermark") == len(late))
        assert wait_for(lambda: len(sink.rows()) > len(want))
        assert sink.rows() == sorted(want + [(*after, 1, 102)])
    finally:
        query.stop()


@pytest.mark.slow  # two runs, waiting in real time (IdleClockSuite tests the clock itself)
def test_a_restart_in_a_quiet_period_loses_nothing_and_repeats_nothing(spark, tmp_path, provider):
    """Stopped while rows wait, and again with its idle micro-batch left uncommitted (as a kill in
    its middle leaves it): the micro-batch run again emits the same rows (its idle clock is logged
    with it), and with the rows that come next every row is emitted, once, with its frames."""
    folder, checkpoint, sink = str(tmp_path / "in"), str(tmp_path / "cp"), Sink()
    first = FIRST
    second = [("e", BASE + 200 * SEC, 20), ("f", BASE + 200 * SEC, 21)]
    later = [("a", BASE + 400 * SEC, 30), ("e", BASE + 401 * SEC, 31)]
    write_file(folder, "0.json", first)
    with session_conf(spark, IDLE_CONF, "2s"):
        query = start(spark, folder, checkpoint, sink)
        closed = [r for r in reference(first) if r[1] <= spark_watermark(first)]
        assert wait_for(lambda: len(sink.rows()) >= len(closed))
        query.stop()  # quiet, the last row waiting (unless the timeout passed meanwhile)

        query = start(spark, folder, checkpoint, sink)
        write_file(folder, "1.json", second)
        # Killed in the idle micro-batch that emits `second`, once its output is out: its commit
        # (and any micro-batch logged after it) undone.
        assert wait_for(lambda: any(r[0] == "e" for r in sink.rows()))
        (idle_batch,) = [b for b, rows in sink.batches.items() if any(r[0] in "ef" for r in rows)]
        assert wait_for(lambda: os.path.exists(os.path.join(checkpoint, "commits", str(idle_batch))))
        query.stop()
        assert sorted(r[2] for r in sink.batches[idle_batch]) == [20, 21]
        for log in ("commits", "offsets"):
            for name in os.listdir(os.path.join(checkpoint, log)):  # with the hidden .N.crc files
                batch = name.lstrip(".").split(".")[0]
                if batch.isdigit() and int(batch) >= idle_batch + (0 if log == "commits" else 1):
                    os.remove(os.path.join(checkpoint, log, name))
        before = sorted(sink.batches.pop(idle_batch))
        query = start(spark, folder, checkpoint, sink)
        assert wait_for(lambda: os.path.exists(os.path.join(checkpoint, "commits", str(idle_batch))))
        assert sorted(sink.batches.get(idle_batch, [])) == before, "the micro-batch run again emitted other rows"
        write_file(folder, "2.json", later)
        want = reference(first + second + later)
        assert wait_for(lambda: len(sink.rows()) >= len(want))
        query.stop()
    assert sink.rows() == want


@pytest.mark.every_spark
def test_a_restart_without_new_input_emits_the_rows_left_waiting(spark, tmp_path, provider):
    """Stopped once its last micro-batch committed, with rows waiting for the idle close, and
    restarted with no new input: the restarted query emits them by the idle clock, every row
    once, with its frames."""
    folder, checkpoint, sink = str(tmp_path / "in"), str(tmp_path / "cp"), Sink()
    write_file(folder, "0.json", FIRST)
    want = reference(FIRST)
    with session_conf(spark, IDLE_CONF, "2s"):
        query = start(spark, folder, checkpoint, sink)
        assert wait_for(lambda: os.path.exists(os.path.join(checkpoint, "commits", "0")))
        query.stop()
        assert len(sink.rows()) < len(want), "the test must stop the query with rows still waiting"
        query = start(spark, folder, checkpoint, sink)
        try:
            assert wait_for(lambda: len(sink.rows()) >= len(want)), f"emitted {sink.rows()}, expected {want}"
        finally:
            query.stop()
    assert sink.rows() == want


def run_available_now(spark: SparkSession, folder: str, checkpoint: str, sink: Sink):
    query = start(spark, folder, checkpoint, sink, trigger={"availableNow": True})
    assert query.awaitTermination(120), "the availableNow run did not end"
    return query


def test_close_at_end_of_input_emits_every_row_of_each_available_now_run(spark, tmp_path, rocksdb):
    """A run with Trigger.AvailableNow ends with every row emitted, the latest one too, whose time
    has microseconds past Spark's millisecond; the next run emits its own rows, and a row at or
    before the first run's last row's millisecond + 1 ms is late. Without the setting, the control: the rows after Spark's
    watermark wait."""
    folder, checkpoint, sink = str(tmp_path / "in"), str(tmp_path / "cp"), Sink()
    first = FIRST + [("b", BASE + 9 * SEC + 500_250, 9)]  # the latest time, 250 us into its millisecond
    later = [("a", BASE + 60 * SEC, 10), ("a", BASE + 61 * SEC, 11), ("d", BASE + 63 * SEC + 1, 12)]
    write_file(folder, "0.json", first)
    control = Sink()
    query = run_available_now(spark, folder, str(tmp_path / "cp-control"), control)
    left_waiting = [r for r in reference(first) if r[1] > spark_watermark(first)]
    assert len(left_waiting) == 2 and control.rows() == [r for r in reference(first) if r not in left_waiting]
    assert "whenQuiet=off" in explain_text(query)
    with session_conf(spark, AT_END_CONF, "true"):
        query = run_available_now(spark, folder, checkpoint, sink)
        assert sink.rows() == reference(first) == spark_batch(spark, first)
        assert total(query, "numRowsClosedWhileIdle") == len(left_waiting)
        assert "whenQuiet=close at end of input" in explain_text(query)
        # Late: at or before the last row's millisecond + 1 ms (Spark's watermarks are whole
        # milliseconds), its time itself, 1 us after it, the last microsecond late; past it, emitted.
        late = [("b", BASE + 9 * SEC + 500_250, 99), ("b", BASE + 9 * SEC + 500_251, 98),
                ("b", BASE + 9 * SEC + 501_000, 97)]
        past = [("e", BASE + 9 * SEC + 501_001, 96)]
        write_file(folder, "1.json", later + late + past)
        query = run_available_now(spark, folder, checkpoint, sink)
    assert sink.rows() == reference(first + later + past)
    assert total(query, "numRowsDroppedByWatermark") == len(late)
