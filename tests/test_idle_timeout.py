"""Windows that close when the stream goes quiet (docs/streaming.md, "When the stream goes quiet"):
the idle timeout (`spark.sql.slidingWindow.idleTimeout`) with a processing-time trigger and real
waiting, and the end of an AvailableNow run's input (`spark.sql.slidingWindow.closeAtEndOfInput`),
checked against the brute-force references of tests/support/reference.py.

The expected windows follow from the rule of docs/streaming.md, not from the timing of the run:
once the input has been quiet for long enough, every window of the rows kept is emitted, exactly
once; a row older than what an idle close emitted is late (dropped and counted for sliding
windows, in the window open at its group's stream time for batch windows)."""
from __future__ import annotations

import os
import threading
import time
from typing import Dict, List, Tuple

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa
from quiet_stream import (AT_END_CONF, BASE, DELAY_TEXT, IDLE_CONF, SCHEMA, SEC, SIZE, SIZE_TEXT, expected,
                          explain_text, first_events, later_events, wait_for, write_file)
from streaming_harness import progress_dict, session_conf

OPERATOR_NAMES = ("slidingWindowAggregate", "batchWindowAggregate")

def windowed(spark: SparkSession, folder: str, function: str) -> DataFrame:
    events = (spark.readStream.schema(SCHEMA).json(folder)
              .withColumn("ts", F.timestamp_micros("t")).withWatermark("ts", DELAY_TEXT))
    window = (swa.sliding_window if function == "sliding" else swa.batch_window)("ts", SIZE_TEXT)
    return (events.groupBy("k", window.alias("w"))
            .agg(F.count("*").alias("n"), F.sum("v").alias("total")))


def as_micros(ts) -> int:
    return int(round(ts.timestamp() * SEC))


class Sink:
    """What a foreachBatch sink received, by micro-batch (a micro-batch run again replaces its
    rows, as an idempotent sink would)."""

    def __init__(self) -> None:
        self.batches: Dict[int, List[tuple]] = {}
        self.lock = threading.Lock()

    def __call__(self, batch: DataFrame, batch_id: int) -> None:
        rows = [(r["k"], as_micros(r["w"]["start"]), as_micros(r["w"]["end"]), r["n"], r["total"])
                for r in batch.collect()]
        with self.lock:
            self.batches[batch_id] = rows

    def windows(self) -> List[tuple]:
        with self.lock:
            return [r for rows in self.batches.values() for r in rows]

    def as_dict(self) -> Dict[Tuple[str, int, int], Tuple[int, int]]:
        rows = self.windows()
        found = {(k, s, e): (n, total) for k, s, e, n, total in rows}
        assert len(found) == len(rows), f"windows emitted twice: {sorted(rows)}"
        return found


def start(spark: SparkSession, folder: str, checkpoint: str, sink: Sink, function: str = "sliding",
          mode: str = "append", trigger: dict = None):
    return (windowed(spark, folder, function).writeStream.outputMode(mode).foreachBatch(sink)
            .option("checkpointLocation", checkpoint)
            .trigger(**(trigger or {"processingTime": "200 milliseconds"})).start())


def operator_progress(query) -> List[dict]:
    """The windowed aggregation's stateOperators entry of each micro-batch, with its batch id
    and input rows."""
    found = []
    for p in map(progress_dict, query.recentProgress):
        for op in p.get("stateOperators", []):
            if op.get("operatorName") in OPERATOR_NAMES:
                found.append(dict(op, batchId=p["batchId"], numInputRows=p["numInputRows"]))
    return found


def custom(op: dict, name: str) -> int:
    return int(op.get("customMetrics", {}).get(name, 0))


@pytest.mark.every_spark
@pytest.mark.parametrize("function", ["sliding", pytest.param("batch", marks=pytest.mark.slow)])  # batch: two idle closes
def test_an_idle_timeout_closes_the_last_windows(spark, tmp_path, provider, function):
    """With the input quiet for the timeout, the watermark moves on with the clock: every window
    is emitted, once, with no new row; the progress counts those Spark's watermark left open; a
    row older than what was emitted is then late."""
    folder, checkpoint, sink = str(tmp_path / "in"), str(tmp_path / "cp"), Sink()
    events = first_events()
    write_file(folder, "0.json", events)
    with session_conf(spark, IDLE_CONF, "1s"):
        query = start(spark, folder, checkpoint, sink, function)
    try:
        want = expected(events, function)
        assert wait_for(lambda: len(sink.windows()) >= len(want)), \
            f"emitted {sorted(sink.windows())}, expected {sorted(want)}"
        assert wait_for(lambda: not query.status["isTriggerActive"], 5)
        assert sink.as_dict() == want

        ops = operator_progress(query)
        spark_watermark = max(e[1] for e in events) - SEC  # Spark's own, once every row is read
        left_open = [w for w in want if w[2] > spark_watermark]
        assert left_open, "the test's input must leave windows that Spark's watermark does not close"
        assert sum(custom(op, "numWindowsClosedWhileIdle") for op in ops) == len(left_open)
        assert "whenQuiet=idle timeout 1s" in explain_text(query)

        # A row in what the idle close emitted comes late.
        late = ("a", BASE + 4 * SEC + 500_000, 100)
        write_file(folder, "1.json", [late])
        if function == "sliding":
            assert wait_for(lambda: sum(op.get("numRowsDroppedByWatermark", 0) for op in operator_progress(query)) == 1)
            time.sleep(3)  # another idle close: nothing of the row comes out
            assert sink.as_dict() == want
        else:
            # Batch windows never drop a row: it joins the window open at its group's stream time,
            # past every window emitted, which the next idle close emits.
            assert wait_for(lambda: len(sink.windows()) == len(want) + 1)
            (added,) = set(sink.as_dict().items()) - set(want.items())
            (k, s, e), (n, total) = added
            assert (k, n, total) == ("a", 1, 100)
            assert s >= max(w[1] for w in want if w[0] == "a") + SIZE
    finally:
        query.stop()


@pytest.mark.slow  # two queries, waiting in real time (IdleClockSuite tests the clock itself)
def test_each_query_keeps_the_setting_it_started_with(spark, tmp_path, provider):
    """The settings are per query: read when it starts. Two queries of one session over the same
    input, one started with a timeout and one without: the first emits every window; for the
    second, the control, Spark's watermark alone leaves the windows of the last rows open."""
    folder = str(tmp_path / "in")
    events = first_events()
    write_file(folder, "0.json", events)
    timed, untimed = Sink(), Sink()
    with session_conf(spark, IDLE_CONF, "1s"):
        timed_query = start(spark, folder, str(tmp_path / "cp-timed"), timed)
    untimed_query = start(spark, folder, str(tmp_path / "cp-untimed"), untimed)
    try:
        want = expected(events, "sliding")
        spark_watermark = max(e[1] for e in events) - SEC
        closed = {w: v for w, v in want.items() if w[2] <= spark_watermark}
        assert closed != want, "the test's input must leave windows that Spark's watermark does not close"
        assert wait_for(lambda: len(timed.windows()) >= len(want))
        assert wait_for(lambda: len(untimed.windows()) >= len(closed))
        time.sleep(4)  # longer than an idle close takes
        assert timed.as_dict() == want
        assert untimed.as_dict() == closed
        assert "whenQuiet=idle timeout 1s" in explain_text(timed_query)
        assert "whenQuiet=off" in explain_text(untimed_query)
    finally:
        timed_query.stop()
        untimed_query.stop()


@pytest.mark.parametrize("function", ["sliding", "batch"])
def test_update_mode_lets_the_state_go(spark, tmp_path, rocksdb, function):
    """In update mode an idle close emits nothing (every window was emitted as it changed) and
    the state of the windows it closes goes."""
    folder, checkpoint, sink = str(tmp_path / "in"), str(tmp_path / "cp"), Sink()
    events = first_events()
    write_file(folder, "0.json", events)
    with session_conf(spark, IDLE_CONF, "1s"):
        query = start(spark, folder, checkpoint, sink, function, mode="update")
    try:
        assert wait_for(lambda: any(op["numRowsTotal"] == 0 and op["numInputRows"] == 0
                                    for op in operator_progress(query)[1:]))
        final = {}
        for batch_id in sorted(sink.batches):
            for k, s, e, n, total in sink.batches[batch_id]:
                final[(k, s, e)] = (n, total)
        assert final == expected(events, function)
        assert all(custom(op, "numWindowsClosedWhileIdle") == 0 for op in operator_progress(query))
    finally:
        query.stop()


@pytest.mark.slow  # two runs, waiting in real time (IdleClockSuite tests the clock itself)
def test_a_restart_in_a_quiet_period_loses_nothing_and_repeats_nothing(spark, tmp_path, provider):
    """Stopped in the middle of an idle period, and again with its last idle micro-batch left
    uncommitted (as a kill in its middle leaves it): the micro-batch run again emits the same
    windows (its idle clock is logged with it), and with the rows that come next the union of the
    outputs is the windows of all the rows, none twice."""
    folder, checkpoint, sink = str(tmp_path / "in"), str(tmp_path / "cp"), Sink()
    first = first_events()
    second = [("e", BASE + 200 * SEC, 20)]  # past anything an idle close of `first` reaches here
    later = later_events(BASE + 400 * SEC)
    write_file(folder, "0.json", first)
    with session_conf(spark, IDLE_CONF, "2s"):
        query = start(spark, folder, checkpoint, sink)
        spark_watermark = max(e[1] for e in first) - SEC
        closed_by_spark = [w for w in expected(first, "sliding") if w[2] <= spark_watermark]
        assert wait_for(lambda: len(sink.windows()) >= len(closed_by_spark))
        query.stop()  # quiet, the windows of the last rows open

        query = start(spark, folder, checkpoint, sink)
        write_file(folder, "1.json", second)
        # Killed in the idle micro-batch that emits the window of `second`, once its output is out:
        # its commit (and any micro-batch logged after it) undone.
        assert wait_for(lambda: any(r[0] == "e" for r in sink.windows()))
        (idle_batch,) = [b for b, rows in sink.batches.items() if any(r[0] == "e" for r in rows)]
        assert wait_for(lambda: os.path.exists(os.path.join(checkpoint, "commits", str(idle_batch))))
        query.stop()
        for log in ("commits", "offsets"):
            for name in os.listdir(os.path.join(checkpoint, log)):  # with the hidden .N.crc files
                batch = name.lstrip(".").split(".")[0]
                if batch.isdigit() and int(batch) >= idle_batch + (0 if log == "commits" else 1):
                    os.remove(os.path.join(checkpoint, log, name))
        last = idle_batch
        before = sorted(sink.batches[last])
        query = start(spark, folder, checkpoint, sink)
        assert wait_for(lambda: os.path.exists(os.path.join(checkpoint, "commits", str(last))))
        assert sorted(sink.batches.get(last, [])) == before, "the micro-batch run again emitted other windows"
        write_file(folder, "2.json", later)
        want = expected(first + second + later, "sliding")
        assert wait_for(lambda: len(sink.windows()) >= len(want))
        query.stop()
    assert sink.as_dict() == want


@pytest.mark.every_spark
def test_a_restart_without_new_input_closes_the_quiet_tail(spark, tmp_path, provider):
    """Stopped once its last micro-batch committed, with windows waiting for the idle close, and
    restarted with no new input: the restarted query closes them by the idle clock, every window
    once, as a query that never stopped."""
    folder, checkpoint, sink = str(tmp_path / "in"), str(tmp_path / "cp"), Sink()
    events = first_events()
    write_file(folder, "0.json", events)
    want = expected(events, "sliding")
    with session_conf(spark, IDLE_CONF, "2s"):
        query = start(spark, folder, checkpoint, sink)
        assert wait_for(lambda: os.path.exists(os.path.join(checkpoint, "commits", "0")))
        query.stop()
        assert len(sink.windows()) < len(want), "the test must stop the query with windows still open"
        query = start(spark, folder, checkpoint, sink)
        try:
            assert wait_for(lambda: len(sink.windows()) >= len(want)), \
                f"emitted {sorted(sink.windows())}, expected {sorted(want)}"
        finally:
            query.stop()
    assert sink.as_dict() == want


def run_available_now(spark: SparkSession, folder: str, checkpoint: str, sink: Sink, function: str = "sliding"):
    query = start(spark, folder, checkpoint, sink, function, trigger={"availableNow": True})
    assert query.awaitTermination(120), "the availableNow run did not end"
    return query


@pytest.mark.every_spark
@pytest.mark.parametrize("function", ["sliding", "batch"])
def test_close_at_end_of_input_emits_the_tail_of_each_available_now_run(spark, tmp_path, provider, function):
    """A run with Trigger.AvailableNow ends with every window of its rows emitted; the next run
    emits the windows of its own rows, and a row within what the first run closed is late."""
    folder, checkpoint, sink = str(tmp_path / "in"), str(tmp_path / "cp"), Sink()
    first, later = first_events(), later_events()
    write_file(folder, "0.json", first)
    with session_conf(spark, AT_END_CONF, "true"):
        run_available_now(spark, folder, checkpoint, sink, function)
        assert sink.as_dict() == expected(first, function)
        write_file(folder, "1.json", later + [("a", BASE + 4 * SEC + 100, 99)])
        query = run_available_now(spark, folder, checkpoint, sink, function)
    if function == "sliding":
        assert sink.as_dict() == {**expected(first, function), **expected(later, function)}
        assert sum(op.get("numRowsDroppedByWatermark", 0) for op in operator_progress(query)) == 1
    else:
        got = sink.as_dict()
        assert {w: v for w, v in got.items() if w in expected(first, function)} == expected(first, function)
        assert sum(n for (n, _) in got.values()) == len(first) + len(later) + 1  # nothing dropped


def test_available_now_runs_end_whatever_the_settings(spark, tmp_path, provider):
    """Without closeAtEndOfInput a run ends with the windows Spark's watermark closed (the tail
    waits for the next run); an idle timeout, even the shortest, never keeps it running (it
    applies to the micro-batches the run makes, no more)."""
    events = first_events()
    every = expected(events, "sliding")
    spark_watermark = max(e[1] for e in events) - SEC
    closed = {w: v for w, v in every.items() if w[2] <= spark_watermark}
    for name, settings in [("plain", {}), ("idle", {IDLE_CONF: "1ms"})]:
        folder, checkpoint, sink = str(tmp_path / name / "in"), str(tmp_path / name / "cp"), Sink()
        write_file(folder, "0.json", events)
        for k, v in settings.items():
            spark.conf.set(k, v)
        try:
            run_available_now(spark, folder, checkpoint, sink)
        finally:
            for k in settings:
                spark.conf.unset(k)
        got = sink.as_dict()
        if name == "plain":
            assert got == closed
        else:
            assert closed.items() <= got.items() <= every.items()


# The rules of the two settings (docs/user-guide.md, docs/streaming.md): unset is off; a value
# set is checked when the query starts. The idle timeout is a positive duration with a unit, as a
# sliding window's size is: a bare number (a Spark time setting would read `5` as 5 ms), zero, a
# negative or empty value is refused, as closeAtEndOfInput refuses what is not true or false.
INVALID_SETTINGS = [
    (IDLE_CONF, "soon", "30s"),
    (IDLE_CONF, "5", "30s"),
    (IDLE_CONF, "0", "30s"),
    (IDLE_CONF, "0s", "30s"),
    (IDLE_CONF, "-5s", "30s"),
    (IDLE_CONF, "", "30s"),
    (IDLE_CONF, "1 month", "30s"),
    (AT_END_CONF, "", "true or false"),
    (AT_END_CONF, "yes", "true or false"),
]


@pytest.mark.parametrize("key,value,example", INVALID_SETTINGS,
                         ids=[f"{k.rsplit('.', 1)[1]}={v!r}" for k, v, _ in INVALID_SETTINGS])
def test_an_invalid_setting_fails_the_query_with_what_to_set(spark, tmp_path, key, value, example):
    """The query stops with WINDOW_INVALID_SETTING naming the setting, its value (quoted, so that
    an empty one shows) and a valid value, before it reads anything."""
    folder, checkpoint, sink = str(tmp_path / "in"), str(tmp_path / "cp"), Sink()
    write_file(folder, "0.json", first_events())
    with session_conf(spark, key, value):
        query = start(spark, folder, checkpoint, sink, trigger={"availableNow": True})
        with pytest.raises(Exception) as e:
            query.awaitTermination(60)
    message = str(e.value)
    assert "[WINDOW_INVALID_SETTING]" in message
    assert f"The setting {key} is '{value}', but it must be" in message, message
    assert example in message and "or unset it" in message, message
    assert sink.windows() == []

