"""Trailing windows on streams (docs/trailing-windows.md, "On a stream"): Spark's own `agg OVER
(PARTITION BY k ORDER BY ts RANGE BETWEEN <size> PRECEDING AND CURRENT ROW)` on a streaming
DataFrame with a watermark, in the Append output mode. Random out-of-order streams with late rows,
equal times, null keys and several sizes, with restarts, are checked against the frames of
tests/support/reference.py on the rows kept (each emitted once, in the first micro-batch whose
watermark reaches its time) and against Spark's own batch Window over the same rows."""
from __future__ import annotations

import json
import os
import random
import re
from typing import Dict, List, Sequence

import pytest
from pyspark.sql import DataFrame, Row, Window
from pyspark.sql import functions as F

import sliding_window_agg as swa
import trailing_fixtures
from checkpoint_fixtures import STORES, oldest_spark_for_checkpoint, restore
from error_conditions import assert_condition, condition_of, query_failure, run_time_cause
from streaming_harness import (BASE, DELAY_TEXT, FLUSH_KEY, ID, KEY, ROCKSDB, SEC, TIME, VALUE, Run, Stream, batch_plan,
                               has_state_reader, operator_metrics, read_stream, run_query, session_conf, spark_version,
                               state_store, write_files)
from trailing_harness import OPERATOR, check, emitted_rows, frame_query, generate, trailing_query

TRAILING_BATCH_CONF = "spark.sql.slidingWindow.trailingWindows.batch"
# The elements of a chunk of the frames' stacks (stored/StoredFrames.scala) and the bytes
# of rows a task holds in Pending parts (state/trailing/PendingParts.scala): small, so that the tests'
# small groups fill chunks and read them back, and write a group's rows of one second in several
# parts.
CHUNK_ELEMENTS_CONF = "spark.sql.slidingWindow.trailingWindows.state.chunkElements"
PART_BYTES_CONF = "spark.sql.slidingWindow.trailingWindows.state.partBytes"
# The bytes of Pending parts a step of the rows due reads (execution/TrailingDueSteps.scala): 1,
# so that each bucket (second) of a backlog is a step of its own.
DUE_STEP_BYTES_CONF = "spark.sql.slidingWindow.trailingWindows.state.dueStepBytes"


def run_stream(spark, tmp_path, stream: Stream, provider: str, restarts: Sequence[int] = (),
               build=trailing_query) -> List[Run]:
    """Runs `build` over the stream's files with availableNow, stopping and restarting from the
    checkpoint before each file of `restarts`."""
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "ck")
    bounds = [0, *restarts, len(stream.files)]
    runs = []
    for a, b in zip(bounds, bounds[1:]):
        write_files(source, stream.files[a:b], first=a)
        with state_store(spark, provider):
            runs.append(run_query(spark, source, checkpoint, build, "append"))
    return runs


def spark_window_values(spark, stream: Stream, runs: Sequence[Run]) -> Dict[int, tuple]:
    """The same query in batch over the rows the stream kept, run by Spark's own Window operator
    (the extension's batch operator turned off): {row id: values as emitted_rows gives them}."""
    late = stream.late(batch_plan(stream, runs))
    kept = [e for f in stream.files for e in f if e[ID] not in late and e[KEY] != FLUSH_KEY]
    df = spark.createDataFrame(kept, "case int, k string, t long, v long, id long") \
        .withColumn("ts", F.timestamp_micros("t"))
    with session_conf(spark, TRAILING_BATCH_CONF, "false"):
        rows = trailing_query(df).collect()
    return {rid: values for rid, (_, values) in emitted_rows([Run([(0, r) for r in rows], [])]).items()}


@pytest.mark.every_spark
# One stream per store through a real query; many more, with other chunk and part sizes, restarts
# and crashes, run in the operator harness (TrailingWindowsHarnessSuite).
@pytest.mark.parametrize("seed,chunk,part", [(1, 2, 200)], ids=["chunks-of-2-parts-of-200-bytes"])
def test_random_streams(spark, tmp_path, provider, seed, chunk, part):
    """With chunks small enough that the frames' stacks spill to chunks and read them back, and
    with parts so small that a group's rows of one second go to several, and with the defaults:
    random streams, restarted from the checkpoint at random files:
    every kept row once, in the micro-batch whose watermark first reaches its time, with the
    frames of the reference and the values of Spark's own Window over the same rows; late rows
    counted."""
    stream = generate(seed)
    rng = random.Random(seed)
    restarts = sorted(rng.sample(range(1, len(stream.files)), rng.randint(1, 2)))
    with session_conf(spark, CHUNK_ELEMENTS_CONF, str(chunk or 32)), \
            session_conf(spark, PART_BYTES_CONF, str(part or 16 << 20)):
        runs = run_stream(spark, tmp_path, stream, provider, restarts)
    check(stream, runs)
    spark_values = spark_window_values(spark, stream, runs)
    for rid, (_, values) in emitted_rows(runs).items():
        assert values == spark_values[rid], f"row {rid}: {values}, Spark's Window: {spark_values[rid]}"
    late = stream.late(batch_plan(stream, runs))
    ops = operator_metrics(runs, OPERATOR)
    assert sum(op["numRowsDroppedByWatermark"] for op in ops) == len(late)
    emitted = emitted_rows(runs)
    assert late and len(emitted) > 30 and len({b for b, _ in emitted.values()}) > 2, "a stream to test: late rows, rows emitted in several micro-batches"


def test_plan_progress_and_bounded_state(spark, tmp_path):
    """One stateful operator for every frame, in explain() and in `stateOperators`, whose state
    keeps only the rows a later row's frame can reach."""
    stream = generate(4)
    runs = run_stream(spark, tmp_path, stream, ROCKSDB)
    check(stream, runs)
    plan = batch_plan(stream, runs)
    ops = operator_metrics(runs, OPERATOR)
    assert len(ops) == len(plan)
    assert all(op["customMetrics"].get("numStateRowsRead") is not None for op in ops)
    # After the flush's micro-batches, nothing a later row's frames reach is kept: the flush row,
    # waiting for the watermark, and its partition's Summary row.
    assert ops[-1]["numRowsTotal"] == 2
    # Emitted rows are counted as the operator's output.
    assert sum(op["customMetrics"]["numGroupsEmitted"] for op in ops) > 0

    query = (trailing_query(read_stream(spark, str(tmp_path / "in"))).writeStream.format("noop")
             .option("checkpointLocation", str(tmp_path / "ck2")).trigger(availableNow=True).start())
    assert query.awaitTermination(120)
    execution = query._jsq.streamingQuery().lastExecution()
    physical = re.sub(r"#[0-9]+L?", "", execution.executedPlan().toString())
    formatted = re.sub(r"#[0-9]+L?", "", execution.explainString(
        getattr(getattr(spark._jvm.org.apache.spark.sql.execution, "FormattedMode$"), "MODULE$")))
    lines = ["Partition [2]: [case, k]", "Frame 10 seconds [3]: [count(1) ", ") AS ids_10s]",
             "Frame 8 seconds to 2 seconds before [2]: [count(1) ", ") AS ids_8s_2s]", "Time: ts",
             "State format version: 1", "State arrangement: scan"]
    # Spark 3.5's explainString plans a streaming plan anew, as a query of its own with no
    # checkpoint, so the micro-batch's mode and watermarks are in its formatted plan from 4.0 on.
    if spark_version(spark) >= (4, 0):
        lines += ["Output mode: Append", "Watermarks (late rows / eviction, ms): "]
    for line in lines:
        assert line in formatted, formatted
    # The helper's frames (ORDER BY unix_micros(ts)) and the SQL frame with a lag (ORDER BY ts):
    # one operator, every frame in it.
    assert physical.count("StreamingTrailingWindow(") == 1, physical
    assert "frames=[10 seconds: [count(1), sum(v), collect_list(id" in physical, physical
    assert "8 seconds to 2 seconds before: [count(1), collect_list(id" in physical, physical
    assert "3 seconds: [count(1), sum(v), collect_list(id" in physical, physical
    # That query ran on the default store: no time index of the groups' expiry.
    assert "stateFormatVersion=1, stateStorage=scan, mode=Append" in physical, physical


@pytest.mark.slow
@pytest.mark.parametrize("provider", sorted(STORES))
def test_groups_no_row_reaches_expire(spark, tmp_path, provider):
    """A group's state goes once no later row's frames reach its rows: through the time index
    where the state has one (RocksDB on Spark 4: each group has an entry at or before its expiry,
    moved when it comes due early), else through a scan when the Summary row says some group may
    have expired. 300 keys with one row each, 50 ms apart, and a key that goes on every 500 ms
    long after them: once the watermark is past their rows plus the frame, only that key's state
    is left, and every row was emitted with its frame's values from their definition."""
    size = 5 * SEC
    groups = [(0, f"g{i:03d}", BASE + i * 50_000, 1, i) for i in range(300)]
    clock = [(0, "clock", BASE + i * 500_000, 2, 1000 + i) for i in range(80)]
    events = sorted(groups + clock, key=lambda e: e[TIME])
    files = [[e for e in events if BASE + s * SEC <= e[TIME] < BASE + (s + 2) * SEC] for s in range(0, 40, 2)]

    def build(df: DataFrame) -> DataFrame:
        w = swa.trailing_window("k", "ts", "5 seconds")
        return df.withWatermark("ts", "1 second").select("id", "k", F.count("*").over(w).alias("n"),
                                                         F.sum("v").over(w).alias("total"))

    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "ck")
    write_files(source, files)
    with state_store(spark, STORES[provider]):
        run = run_query(spark, source, checkpoint, build, "append")
    got = {r.id: (r.n, r.total) for _, r in run.rows}
    watermark = max(e[TIME] for e in events) - SEC
    expected = {}
    for _, k, t, _, rid in events:
        if t <= watermark:
            inside = [e for e in events if e[KEY] == k and t - size <= e[TIME] <= t]
            expected[rid] = (len(inside), sum(e[VALUE] for e in inside))
    assert got == expected
    ops = operator_metrics([run], OPERATOR)
    # Left: the clock's Frames row (and its time index entry), its rows waiting, the Summary row.
    assert ops[-1]["numRowsTotal"] <= 6, [op["numRowsTotal"] for op in ops]
    # Half-way, the keys of the first seconds are gone already, not only at the end.
    assert min(op["numRowsTotal"] for op in ops[len(ops) // 2:]) < 100, [op["numRowsTotal"] for op in ops]
    assert sum(op["numRowsRemoved"] for op in ops) >= 600  # each key's Frames row and its part


@pytest.mark.slow
def test_a_micro_batch_reads_the_rows_waiting_not_the_rows_kept(spark, tmp_path):
    """The state keeps each group's frames, so a micro-batch reads the rows waiting for the
    watermark and a few rows per group, not every row its largest frame holds; it keeps the rows
    waiting in a part or two per group and micro-batch, so it writes and reads a few state rows,
    not one per row. One key, a row every 10 ms (100 a micro-batch), a 20-second frame (2,000
    rows), the watermark 1 second behind. Every row is emitted with the frames' values from their
    definition; the stacks spill to Chunk rows (Spark's state reader, 4.0 and later)."""
    step, size = 10 * 1000, 20 * SEC
    events = [(0, "a", BASE + i * step, i % 7, i) for i in range(3000)]
    files = [events[i:i + 100] for i in range(0, len(events), 100)]
    files[-1] = files[-1] + [(0, "a", events[-1][TIME] + 2 * SEC, 0, len(events))]

    def build(df: DataFrame) -> DataFrame:
        w = swa.trailing_window("k", "ts", "20 seconds")
        w5 = swa.trailing_window("k", "ts", "5 seconds")
        return df.withWatermark("ts", "1 second").select(
            "id", F.count("*").over(w).alias("n"), F.sum("v").over(w).alias("total"),
            F.max("v").over(w).alias("top"), F.count("*").over(w5).alias("n5"))

    expected = {}
    for _, _, t, _, rid in events:
        inside = [e for e in events if t - size <= e[TIME] <= t]
        inside5 = [e for e in events if t - 5 * SEC <= e[TIME] <= t]
        expected[rid] = (len(inside), sum(e[VALUE] for e in inside), max(e[VALUE] for e in inside), len(inside5))
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "ck")
    write_files(source, files)
    with session_conf(spark, CHUNK_ELEMENTS_CONF, "8"):
        run = run_query(spark, source, checkpoint, build, "append")
    got = {r.id: (r.n, r.total, r.top, r.n5) for _, r in run.rows}
    assert got == expected
    ops = operator_metrics([run], OPERATOR)
    reads = [op["customMetrics"]["numStateRowsRead"] for op in ops]
    writes = [op["numRowsUpdated"] for op in ops]
    # Not the 2,000 rows the frame holds: the parts of the last second or two, the group's Frames
    # row and a few Chunk rows (a flip reads the back's chunks: amortized, a few per micro-batch).
    assert max(reads) < 2000 and sum(reads) / len(reads) < 100, reads
    # Not a state row per row: a part or two, the part whose rows are not all due yet again, the
    # Frames row and the chunks the stacks filled.
    assert sum(writes) < len(events) and sorted(writes)[len(writes) // 2] < 50, writes
    if has_state_reader(spark):
        kinds = (spark.read.format("statestore").option("operatorId", 2000).load(checkpoint)
                 .groupBy("key.__kind").count().collect())
        assert {k[0] for k in kinds} >= {0, 1, 2}, kinds  # Pending, Frames, Chunk rows


@pytest.mark.slow
@pytest.mark.parametrize("jump", [200, 7200], ids=["bucket-by-bucket", "whole-store-scan"])
def test_a_backlog_due_at_once_is_emitted_in_steps(spark, tmp_path, provider, jump):
    """A backlog of rows kept waiting over several micro-batches (three keys, 60 seconds, equal
    times, several parts per group and micro-batch), then a watermark that jumps `jump` seconds, over
    fewer buckets than a whole-store scan is worth or more: read one bucket (second) per step, each
    group resuming its frames at every step, every row due is emitted once with the aggregates over
    its group's rows in [t - size, t], as a reference computes them; the rows of the watermark's own
    second not due yet wait, and come out with the next jump."""
    rng = random.Random(jump)
    delay = 100 * SEC
    events = [(0, rng.choice("abc"), BASE + rng.randrange(60 * SEC) // 250_000 * 250_000, rng.randrange(100), i)
              for i in range(600)]
    eviction = BASE + jump * SEC - delay + SEC // 3  # a third into its second
    # After the eviction watermark, in its second: not due at the jump.
    waiting = [(0, "a", eviction + SEC // 2, 7, 600), (0, "b", eviction + SEC // 3 + 1, 8, 601)]
    flush = [(0, FLUSH_KEY, eviction + delay, 0, 602)]
    later = [(0, FLUSH_KEY, eviction + delay + 10 * SEC, 0, 603)]
    files = [events[i:i + 200] for i in range(0, len(events), 200)] + [waiting + flush, later]

    def build(df: DataFrame) -> DataFrame:
        w = swa.trailing_window("k", "ts", "10 seconds")
        w3 = swa.trailing_window("k", "ts", "3 seconds")
        return df.withWatermark("ts", "100 seconds").select(
            "id", F.count("*").over(w).alias("n"), F.sum("v").over(w).alias("total"),
            F.max("v").over(w).alias("top"), F.sum("v").over(w3).alias("total3"))

    kept = events + waiting
    expected = {}
    for _, k, t, _, rid in kept:
        inside = [e for e in kept if e[KEY] == k and t - 10 * SEC <= e[TIME] <= t]
        inside3 = [e for e in kept if e[KEY] == k and t - 3 * SEC <= e[TIME] <= t]
        expected[rid] = (len(inside), sum(e[VALUE] for e in inside), max(e[VALUE] for e in inside),
                         sum(e[VALUE] for e in inside3))
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "ck")
    write_files(source, files)
    with session_conf(spark, DUE_STEP_BYTES_CONF, "1"), session_conf(spark, PART_BYTES_CONF, "300"), \
            session_conf(spark, CHUNK_ELEMENTS_CONF, "4"):
        run = run_query(spark, source, checkpoint, build, "append")
    got = {r.id: (r.n, r.total, r.top, r.total3) for _, r in run.rows}
    assert len(got) == len(run.rows) == len(kept), "each row due emitted once"
    assert got == expected
    batch_of = {r.id: b for b, r in run.rows}
    assert len({batch_of[e[ID]] for e in events}) == 1, "the backlog comes out in one micro-batch"
    assert batch_of[600] == batch_of[601] > batch_of[0], "the rows of the watermark's second not due wait"


def test_sql_window_clause(spark, tmp_path):
    """SQL over a streaming view: inline OVER and the WINDOW clause, frames on the TIMESTAMP."""
    stream = generate(5)

    def build(df: DataFrame) -> DataFrame:
        df.withWatermark("ts", DELAY_TEXT).createOrReplaceTempView("trailing_events")
        return df.sparkSession.sql("""
            SELECT case, k, t, v, id,
                   count(*) OVER w3 AS n_3s, sum(v) OVER w3 AS total_3s, collect_list(id) OVER w3 AS ids_3s,
                   count(*) OVER w10 AS n_10s, sum(v) OVER w10 AS total_10s, collect_list(id) OVER w10 AS ids_10s,
                   count(*) OVER (PARTITION BY case, k ORDER BY ts
                                  RANGE BETWEEN INTERVAL 8 SECONDS PRECEDING AND INTERVAL 2 SECONDS PRECEDING) AS n_8s_2s,
                   collect_list(id) OVER (PARTITION BY case, k ORDER BY ts
                                  RANGE BETWEEN INTERVAL 8 SECONDS PRECEDING AND INTERVAL 2 SECONDS PRECEDING) AS ids_8s_2s
            FROM trailing_events
            WINDOW w3 AS (PARTITION BY case, k ORDER BY ts RANGE BETWEEN INTERVAL 3 SECONDS PRECEDING AND CURRENT ROW),
                   w10 AS (PARTITION BY case, k ORDER BY ts RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW)
        """)

    runs = run_stream(spark, tmp_path, stream, ROCKSDB, build=build)
    check(stream, runs)


def start_failure(spark, tmp_path, build, mode: str = "append", at_start: bool = False):
    """The extension's error a query of `build` fails with: when it is built (analysis), when it
    starts (`start()`), or when its first micro-batch is planned (then Spark's STREAM_FAILED is
    caused by it). With `at_start`, the error must come by `start()` where Spark checks the query
    there for the extension (4.0 and later)."""
    source = str(tmp_path / "in")
    write_files(source, generate(6).files[:1])
    try:
        writer = (build(read_stream(spark, source)).writeStream.outputMode(mode).format("noop")
                  .option("checkpointLocation", str(tmp_path / "ck")).trigger(availableNow=True))
    except Exception as e:  # noqa: BLE001  (refused when the query is defined)
        failure, started = e, False
    else:
        failure, at_start_raised = query_failure(writer)
        started = not at_start_raised
    if at_start and spark_version(spark) >= (4, 0):
        assert not started, "the query started: its error should come from start()"
    if (condition_of(failure) or "").startswith("WINDOW_"):
        return failure
    return run_time_cause(failure)


@pytest.mark.parametrize("expression", [
    "row_number() OVER (PARTITION BY k ORDER BY ts)",
    "lag(v) OVER (PARTITION BY k ORDER BY ts)",
    "count(*) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)",
    "count(*) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL 3 SECONDS PRECEDING AND INTERVAL 3 SECONDS FOLLOWING)",
    "count(*) OVER (PARTITION BY k ORDER BY ts DESC RANGE BETWEEN INTERVAL 3 SECONDS PRECEDING AND CURRENT ROW)",
    "sum(v) OVER (PARTITION BY k)",
])
def test_other_window_functions_refused(spark, tmp_path, expression):
    error = start_failure(spark, tmp_path, lambda df: df.withWatermark("ts", DELAY_TEXT)
                          .select("k", F.expr(expression).alias("x")))
    assert_condition(error, "WINDOW_STREAMING_NOT_TRAILING", "0A000")
    assert "RANGE BETWEEN" in str(error)


@pytest.mark.parametrize("mode", ["update", "complete"])
def test_other_output_modes_refused(spark, tmp_path, mode):
    if mode == "complete" and spark_version(spark) < (4, 0):
        pytest.skip("Spark 3.5 refuses the Complete mode without an aggregation itself, at start()")
    error = start_failure(spark, tmp_path, trailing_query, mode, at_start=True)
    assert_condition(error, "WINDOW_STREAMING_TRAILING_OUTPUT_MODE", "42KDE")
    assert dict(error.getMessageParameters())["mode"] == mode.capitalize()
    assert 'outputMode("append")' in str(error)


@pytest.mark.parametrize("watermark", [None, "other"])
def test_watermark_needed(spark, tmp_path, watermark):
    def build(df: DataFrame) -> DataFrame:
        if watermark == "other":
            df = df.withColumn("other", F.col("ts")).withWatermark("other", DELAY_TEXT)
        return df.select("k", F.count("*").over(swa.trailing_window("k", "ts", "3 seconds")).alias("n"))

    error = start_failure(spark, tmp_path, build, at_start=True)
    assert_condition(error, "WINDOW_STREAMING_TRAILING_WATERMARK", "42KDE")
    assert 'withWatermark("ts", delay)' in str(error)
    if watermark == "other":
        assert "the query has one on other" in str(error)


def test_order_by_a_number_needs_a_watermarked_time(spark, tmp_path):
    """A BIGINT ORDER BY that is not `unix_micros` of the watermarked TIMESTAMP: no watermark orders it."""
    error = start_failure(spark, tmp_path, lambda df: df.withWatermark("ts", DELAY_TEXT).select(
        "k", F.expr("count(*) OVER (PARTITION BY k ORDER BY v RANGE BETWEEN 3 PRECEDING AND CURRENT ROW)").alias("n")),
        at_start=True)
    assert_condition(error, "WINDOW_STREAMING_TRAILING_WATERMARK", "42KDE")
    assert "ORDER BY column v needs a watermark" in str(error)


@pytest.mark.parametrize("written", ["sql", "helper"])
def test_timestamp_ntz_time_refused(spark, tmp_path, written):
    """A TIMESTAMP_NTZ column cannot have a watermark: the query is refused when it is defined,
    with what to convert, whether the frame is in SQL or from the helper (unix_micros of it)."""
    def build(df: DataFrame) -> DataFrame:
        df = df.withColumn("local", F.expr("CAST(ts AS TIMESTAMP_NTZ)"))
        if written == "sql":
            return df.select("k", F.expr("count(*) OVER (PARTITION BY k ORDER BY local "
                                         "RANGE BETWEEN INTERVAL 3 SECONDS PRECEDING AND CURRENT ROW)").alias("n"))
        return df.select("k", F.count("*").over(swa.trailing_window("k", "local", "3 seconds")).alias("n"))

    if written == "helper" and spark_version(spark) < (4, 0):
        # Spark 3.5's unix_micros takes a TIMESTAMP only: the helper's frame on a TIMESTAMP_NTZ
        # column is refused for its time column, in batch too (docs/trailing-windows.md), with
        # the same cast to make.
        with pytest.raises(Exception) as failure:
            build(read_stream(spark, str(tmp_path))).schema
        assert_condition(failure.value, "WINDOW_TRAILING_TIME_COLUMN", "42K09")
        assert "TIMESTAMP_NTZ's wall-clock times are read, in the session time zone" in str(failure.value)
        return
    error = start_failure(spark, tmp_path, build)
    assert_condition(error, "WINDOW_STREAMING_TRAILING_TIMESTAMP_NTZ", "42KDE")
    assert dict(error.getMessageParameters())["timeColumn"] == "local"
    assert "CAST(local AS TIMESTAMP) reads its wall-clock times in the session time zone" in str(error)


@pytest.mark.every_spark
@pytest.mark.parametrize("written", ["helper", "sql"])
def test_pandas_aggregate_refused_with_the_alternative(spark, tmp_path, written):
    """A pandas aggregate over a trailing frame on a stream: refused when the query is defined,
    with what to write instead (collect_list over the frame, then Python over the arrays)."""
    pytest.importorskip("pyarrow")
    from python_aggregates import pandas_mean

    pmean = pandas_mean(spark, "stream_pmean")

    def build(df: DataFrame) -> DataFrame:
        df = df.withWatermark("ts", DELAY_TEXT)
        if written == "sql":
            return df.select("k", F.expr("stream_pmean(v) OVER (PARTITION BY k ORDER BY ts "
                                         "RANGE BETWEEN INTERVAL 3 SECONDS PRECEDING AND CURRENT ROW)").alias("m"))
        window = swa.trailing_window("k", "ts", "3 seconds")
        return df.select("k", F.count("*").over(window).alias("n"), pmean("v").over(window).alias("m"))

    error = start_failure(spark, tmp_path, build)
    assert_condition(error, "WINDOW_STREAMING_TRAILING_PYTHON_AGGREGATE", "0A000")
    assert dict(error.getMessageParameters())["aggregate"] == ("stream_pmean(v)" if written == "sql" else "mean(v)")
    assert "collect_list(v) OVER (...) AS vs, and apply the Python function to the arrays" in str(error)


def test_restart_with_a_larger_frame_refused(spark, tmp_path):
    """The state keeps rows for the largest frame: a restart may not make it larger."""
    stream = generate(7)
    run_stream(spark, tmp_path, stream.__class__(stream.files[:2], stream.size), ROCKSDB)

    def larger(df: DataFrame) -> DataFrame:
        return df.withWatermark("ts", DELAY_TEXT).select(
            "k", F.count("*").over(swa.trailing_window(["case", "k"], "ts", "1 minute")).alias("n"))

    write_files(str(tmp_path / "in"), stream.files[2:3], first=2)
    with pytest.raises(Exception) as failure:
        with state_store(spark, ROCKSDB):
            run_query(spark, str(tmp_path / "in"), str(tmp_path / "ck"), larger, "append")
    assert_condition(run_time_cause(failure.value), "WINDOW_STATE_INCOMPATIBLE_RESTART", "42K06")
    assert "'10 seconds'" in str(failure.value) and "'1 minute'" in str(failure.value)


def test_restart_that_changes_the_aggregates(spark, tmp_path):
    """The state keeps each frame's partial aggregates: a restart may not change the frames or
    their aggregates."""
    stream = generate(7)
    run_stream(spark, tmp_path, stream.__class__(stream.files[:2], stream.size), ROCKSDB)

    def other(df: DataFrame) -> DataFrame:
        return df.withWatermark("ts", DELAY_TEXT).select(
            "case", "k", "t", "v", "id",
            F.max("v").over(swa.trailing_window(["case", "k"], "ts", "10 seconds")).alias("top"))

    write_files(str(tmp_path / "in"), stream.files[2:3], first=2)
    with state_store(spark, ROCKSDB), pytest.raises(Exception) as failure:
        run_query(spark, str(tmp_path / "in"), str(tmp_path / "ck"), other, "append")
    assert_condition(run_time_cause(failure.value), "WINDOW_STATE_INCOMPATIBLE_RESTART", "42K06")
    assert "aggregate functions" in str(failure.value) and "max(v) OVER (10 seconds)" in str(failure.value)


SCHEMA_CHECK_CONF = "spark.sql.streaming.stateStore.stateSchemaCheck"
PLAIN_COLUMNS = ("case", "k", "t", "v", "id")


def written_as(form: str, columns: Sequence[str] = PLAIN_COLUMNS):
    """The harness's query (trailing_query's frames and columns) with its plain columns in the
    order `columns`, every frame written in one form: "sql" (`ORDER BY ts` with intervals: the
    operator keeps `ts` in its rows) or "helper" (the `trailing_window` helper, and `unix_micros(ts)`
    with numbers for the frame with a lag: the operator keeps `unix_micros(ts)`), the documented
    equivalents (docs/trailing-windows.md), or "SQL": "sql" with every name in upper case (the
    columns shown named as the others')."""
    def build(df: DataFrame) -> DataFrame:
        df = df.withWatermark("ts", DELAY_TEXT)
        if form in ("sql", "SQL"):
            def frame(size: str, upper: str = "CURRENT ROW"):
                return f"OVER (PARTITION BY case, k ORDER BY ts RANGE BETWEEN INTERVAL {size} PRECEDING AND {upper})"

            def sql(text: str):
                return F.expr(text.upper() if form == "SQL" else text)
            w3, w10, w8 = frame("3 SECONDS"), frame("10 SECONDS"), frame("8 SECONDS", "INTERVAL 2 SECONDS PRECEDING")
            windows = [sql(f"count(*) {w3}").alias("n_3s"), sql(f"sum(v) {w3}").alias("total_3s"),
                       sql(f"collect_list(id) {w3}").alias("ids_3s"),
                       sql(f"count(*) {w10}").alias("n_10s"), sql(f"sum(v) {w10}").alias("total_10s"),
                       sql(f"collect_list(id) {w10}").alias("ids_10s"),
                       sql(f"count(*) {w8}").alias("n_8s_2s"), sql(f"collect_list(id) {w8}").alias("ids_8s_2s")]
            if form == "SQL":
                selected = df.select(*[c.upper() for c in columns], *windows)
                return selected.toDF(*columns, *selected.columns[len(columns):])
        else:
            w3 = swa.trailing_window(["case", "k"], "ts", "3 seconds")
            w10 = swa.trailing_window(["case", "k"], "ts", "10 seconds")
            w8 = Window.partitionBy("case", "k").orderBy(F.unix_micros("ts")).rangeBetween(-8 * SEC, -2 * SEC)
            windows = [F.count("*").over(w3).alias("n_3s"), F.sum("v").over(w3).alias("total_3s"),
                       F.collect_list("id").over(w3).alias("ids_3s"),
                       F.count("*").over(w10).alias("n_10s"), F.sum("v").over(w10).alias("total_10s"),
                       F.collect_list("id").over(w10).alias("ids_10s"),
                       F.count("*").over(w8).alias("n_8s_2s"), F.collect_list("id").over(w8).alias("ids_8s_2s")]
        return df.select(*columns, *windows)
    return build


def run_restarted(spark, tmp_path, stream: Stream, builds, schema_check: bool = True) -> List[Run]:
    """Each of `builds` over its share of the stream's files (the first from a new checkpoint,
    each other a restart of the one before it), with Spark's state schema check on or off."""
    bounds = [round(i * len(stream.files) / len(builds)) for i in range(len(builds) + 1)]
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "ck")
    runs = []
    with session_conf(spark, SCHEMA_CHECK_CONF, str(schema_check).lower()), state_store(spark, ROCKSDB):
        for build, a, b in zip(builds, bounds, bounds[1:]):
            write_files(source, stream.files[a:b], first=a)
            runs.append(run_query(spark, source, checkpoint, build, "append"))
    return runs


# Each change once, with Spark's state schema check on or off in turn (both ways per kind).
@pytest.mark.parametrize("first,then,schema_check", [
    (("helper", PLAIN_COLUMNS), ("helper", ("id", "v", "t", "k", "case")), True),
    (("sql", PLAIN_COLUMNS), ("sql", ("v", "case", "id", "k", "t")), False),
    (("sql", PLAIN_COLUMNS), ("helper", PLAIN_COLUMNS), True),
    (("helper", PLAIN_COLUMNS), ("sql", PLAIN_COLUMNS), False),
    (("sql", ("k", "case", "id", "t", "v")), ("helper", ("id", "t", "case", "v", "k")), True),
    (("sql", PLAIN_COLUMNS), ("SQL", PLAIN_COLUMNS), False),
], ids=["helper-reordered-schema-check", "sql-reordered-no-schema-check", "sql-then-helper-schema-check",
        "helper-then-sql-no-schema-check", "sql-then-helper-reordered-schema-check", "sql-upper-case-no-schema-check"])
@pytest.mark.slow
def test_restart_with_the_columns_in_another_order(spark, tmp_path, first, then, schema_check):
    """The rows waiting for the watermark are kept in the order of the query that started, which
    its record holds: a restart with the same plain columns in another SELECT order, or its frames
    written in the other documented form (SQL `ORDER BY ts`, or the helper's `unix_micros(ts)`),
    or every name in upper case (`SELECT K, ... SUM(V) OVER (PARTITION BY CASE, K ...)`),
    reads them by name and emits each row once, as the reference and Spark's own Window over the
    kept rows say, whether Spark's state schema check is on or off. A second restart goes back."""
    stream = generate(9)
    runs = run_restarted(spark, tmp_path, stream, [written_as(*first), written_as(*then), written_as(*first)],
                         schema_check)
    assert all(run.rows for run in runs[:2]), "each run emits rows"
    assert [tuple(r.asDict())[:5] for r in (runs[1].rows[0][1], runs[0].rows[0][1])] == [then[1], first[1]]
    check(stream, runs)
    spark_values = spark_window_values(spark, stream, runs)
    for rid, (_, values) in emitted_rows(runs).items():
        assert values == spark_values[rid], f"row {rid}: {values}, Spark's Window: {spark_values[rid]}"


@pytest.mark.parametrize("columns,before,after,schema_check", [
    (("case", "k", "t", "v", "id", "extra"), "[`case` INT, `k` STRING, `t` BIGINT, `v` BIGINT, `id` BIGINT]",
     "[`case` INT, `k` STRING, `t` BIGINT, `v` BIGINT, `id` BIGINT, `extra` BIGINT]", True),
    (("id", "case", "k", "v"), "[`case` INT, `k` STRING, `t` BIGINT, `v` BIGINT, `id` BIGINT]",
     "[`id` BIGINT, `case` INT, `k` STRING, `v` BIGINT]", False),
    (("case", "k", "t_text", "v", "id"), "[`case` INT, `k` STRING, `t` BIGINT, `v` BIGINT, `id` BIGINT]",
     "[`case` INT, `k` STRING, `t_text` STRING, `v` BIGINT, `id` BIGINT]", True),
], ids=["added-schema-check", "removed-no-schema-check", "renamed-and-retyped-schema-check"])
def test_restart_that_changes_the_columns_refused(spark, tmp_path, columns, before, after, schema_check):
    """A restart whose plain columns are not those the rows waiting for the watermark hold is
    refused with the extension's error naming them, before a micro-batch commits, whether Spark's
    state schema check is on or off."""
    stream = generate(9)
    run_restarted(spark, tmp_path, stream.__class__(stream.files[:2], stream.size), [written_as("helper")])
    commits = sorted(os.listdir(tmp_path / "ck" / "commits"))

    def changed(df: DataFrame) -> DataFrame:
        df = df.withColumn("extra", F.col("v") * 2).withColumn("t_text", F.col("t").cast("string"))
        return written_as("helper", columns)(df)

    write_files(str(tmp_path / "in"), stream.files[2:3], first=2)
    with pytest.raises(Exception) as failure:
        with session_conf(spark, SCHEMA_CHECK_CONF, str(schema_check).lower()), state_store(spark, ROCKSDB):
            run_query(spark, str(tmp_path / "in"), str(tmp_path / "ck"), changed, "append")
    error = run_time_cause(failure.value)
    assert_condition(error, "WINDOW_STATE_INCOMPATIBLE_RESTART", "42K06")
    parameters = dict(error.getMessageParameters())
    assert (parameters["change"], parameters["before"], parameters["after"]) == ("input columns", before, after)
    assert sorted(os.listdir(tmp_path / "ck" / "commits")) == commits


@pytest.mark.parametrize("folder", trailing_fixtures.folders(), ids=os.path.basename)
def test_checkpoint_fixtures_restart(spark, tmp_path, folder):
    """The checkpoints of the state format, one per state store, restart: the rest of the input,
    then both runs together emit what the reference says, each row once."""
    with open(os.path.join(folder, "fixture.json")) as f:
        meta = json.load(f)
    if spark_version(spark) < oldest_spark_for_checkpoint(os.path.join(folder, "checkpoint"), default=False):
        pytest.skip(f"Spark {spark.version} refuses this arrangement of the state (docs/compatibility.md)")
    with open(os.path.join(folder, "first_run.json")) as f:
        saved = json.load(f)
    first = Run([(b, Row(**r)) for b, r in saved["rows"]], saved["progress"])
    source, checkpoint = restore(folder, str(tmp_path))
    stream = generate(meta["seed"])
    assert [len(f) for f in stream.files] == [sum(1 for _ in open(os.path.join(source, n))) for n in sorted(os.listdir(source))]
    with state_store(spark, STORES[meta["store"]]):
        second = run_query(spark, source, checkpoint, trailing_query, "append")
    assert second.progress and first.rows, "the fixture stops half-way, with rows emitted and rows to emit"
    check(stream, [first, second])


def test_every_aggregate_as_spark_computes_it(spark, tmp_path):
    """The batch suite's ten aggregates (a decimal sum, avg, stddev, sorted collect_list, a Scala
    Aggregator UDAF...) over a frame up to the row and one that ends 2 seconds before it, on a
    stream: the batch query's schema, and each emitted row as Spark's own Window computes it over
    the kept rows."""
    sizes = ["10 seconds", "8 seconds/2 seconds"]
    stream = generate(8)

    schemas = []

    def build(df: DataFrame) -> DataFrame:
        df.withWatermark("ts", DELAY_TEXT).createOrReplaceTempView("stream_events")
        query = df.sparkSession.sql(frame_query("stream_events", sizes))
        schemas.append(query.schema)
        return query

    runs = run_stream(spark, tmp_path, stream, ROCKSDB, build=build)
    late = stream.late(batch_plan(stream, runs))
    kept = [e for f in stream.files for e in f if e[ID] not in late and e[KEY] != FLUSH_KEY]
    spark.createDataFrame(kept, "case int, k string, t long, v long, id long") \
        .withColumn("ts", F.timestamp_micros("t")).createOrReplaceTempView("kept_events")
    with session_conf(spark, TRAILING_BATCH_CONF, "false"):
        batch = spark.sql(frame_query("kept_events", sizes))
        want = {r.id: r.asDict() for r in batch.collect()}
    # The same columns, types and nullability as the batch query (count is never null); the
    # stream's `ts` also carries its watermark in its metadata.
    def fields(schema):
        return [(f.name, f.dataType, f.nullable) for f in schema.fields]
    assert fields(schemas[0]) == fields(batch.schema)
    got = [r.asDict() for run in runs for _, r in run.rows if r.k != FLUSH_KEY]
    assert len(got) == len({r["id"] for r in got}) > 30
    for row in got:
        expected = want[row["id"]]
        for column, value in row.items():
            if isinstance(value, float):
                assert value == pytest.approx(expected[column], rel=1e-9), (row["id"], column)
            else:
                assert value == expected[column], (row["id"], column, value, expected[column])
