"""Sliding windows in Structured Streaming (docs/contract.md, "Sliding windows in Structured
Streaming"), checked differentially against the brute-force batch reference (tests/support/reference.py),
with the harness of streaming_harness.py (one file per micro-batch, availableNow runs, Spark's
watermarks simulated and checked against its progress reports)."""
from __future__ import annotations

import os
import shutil
from collections import defaultdict
from typing import Dict, List, Tuple

import pytest
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

import sliding_window_agg as swa
from reference import batch_windows, sliding_windows
from streaming_harness import (BASE, CASE, CHECKS, DELAY, DELAY_TEXT, FLUSH_KEY, HDFS, ID, KEY, MS,
                               RESWEEP_ROWS_CONF, ROCKSDB, SEC, SIZES, TIME, VALUE, Batch, Run,
                               Stream, batch_plan, check_append, check_closed_windows,
                               check_update, diff_message, dropped_rows, flush_event,
                               generate_stream, has_state_reader, operator_metrics, output,
                               restart_point, run_query, session_conf, sliding_query, state_format,
                               state_store, watermark_ms, write_files)
from windows_util import Event, window_micros


# One query per (mode, size, seed), shared by the tests that check its output and its metrics.
MODES = ["append", "update"]
SEEDS = range(3)
CASES = 6
# Per seed, how many rows a group has at most to be swept again in memory in append mode rather
# than resume its stored queue: never (every visit resumes its queue), every group in its record
# (the default), and a limit the groups cross both ways.
RESWEEP_ROWS = {0: "0", 1: "512", 2: "2"}


# One test worker runs this module's tests (`make test` runs pytest -n 2 --dist loadgroup):
# each random stream they check is run once, by a module fixture.
pytestmark = pytest.mark.xdist_group("sliding_streaming")


@pytest.fixture(scope="module")
def random_run(spark, tmp_path_factory):
    """random_run(mode, size_text, seed) -> (stream, run), each query run once per module."""
    done: Dict[tuple, tuple] = {}

    def get(mode: str, size_text: str, seed: int):
        key = (mode, size_text, seed)
        if key not in done:
            stream = generate_stream(seed, SIZES[size_text], cases=CASES)
            folder = tmp_path_factory.mktemp(f"{mode}-{SIZES[size_text] // SEC}s-{seed}")
            write_files(str(folder / "in"), stream.files)
            try:
                with state_store(spark, ROCKSDB), session_conf(spark, RESWEEP_ROWS_CONF, RESWEEP_ROWS[seed]):
                    done[key] = (stream, run_query(spark, str(folder / "in"),
                                                   str(folder / "checkpoint"),
                                                   sliding_query(size_text), mode))
            except Exception as e:  # noqa: BLE001 - raised again for every test of this query
                done[key] = (stream, e)
        stream, run = done[key]
        if isinstance(run, Exception):
            raise run
        return stream, run

    return get


# Each mode, size and resweep limit once: many more streams, restarts and settings run in the
# operator harness (SlidingWindowsHarnessSuite).
# One stream per mode: the operator harness runs hundreds more, over both stores.
RANDOM = pytest.mark.parametrize("mode,size_text,seed", [("append", "3 seconds", 0), ("update", "10 seconds", 0)])


@RANDOM
def test_random_streams_match_reference(random_run, mode, size_text, seed):
    """Append: every window of the batch reference on the kept rows exactly once, final, in the
    micro-batch whose watermark first reaches its end. Update: the current row of every
    changed window in each micro-batch, the last one final."""
    stream, run = random_run(mode, size_text, seed)
    CHECKS[mode](stream, [run])


@RANDOM
def test_late_rows_are_dropped_and_counted(random_run, mode, size_text, seed):
    """numRowsDroppedByWatermark of the slidingWindowAggregate operator, summed over the
    micro-batches, is the number of rows at or below the watermark of the micro-batch before
    theirs; the operator reports numRowsTotal."""
    stream, run = random_run(mode, size_text, seed)
    metrics = operator_metrics([run])
    assert all("numRowsTotal" in op for op in metrics)
    assert dropped_rows([run]) == len(stream.late(batch_plan(stream, [run])))


def test_random_streams_exercise_lateness():
    """The generated streams have what they should: several files, rows dropped as late, rows
    exactly at the late threshold, rows out of order but kept."""
    streams = [generate_stream(seed, SIZES[s], cases=CASES) for s in SIZES for seed in SEEDS]
    at_threshold = out_of_order_kept = 0
    for stream in streams:
        plan = stream.plan()
        late = stream.late(plan)
        assert len(stream.files) >= 4 and late
        previous, newest = 0, 0
        for batch in plan:
            for e in (e for f in stream.files[batch.files_before:batch.files_through] for e in f):
                at_threshold += e[TIME] == previous * MS
                out_of_order_kept += e[ID] not in late and e[TIME] < newest
                newest = max(newest, e[TIME])
            previous = batch.watermark
    assert at_threshold and out_of_order_kept


def test_explicit_stream_emits_each_window_when_the_watermark_passes_its_end(
        spark, rocksdb, tmp_path):
    """Size 10 s, delay 5 s; times in seconds after BASE. Batch watermarks: 0, 9, 15, 25, then
    the flush's (batch 4, no data). The row at 9 s arrives in batch 2, exactly at the watermark
    of batch 1: dropped; the windows [0, 10] and [4, 14] it would have joined are emitted in
    batch 2 (watermark 15 s) without it."""
    def ev(t_sec, i):
        return (0, "a", BASE + t_sec * SEC, i, i)

    events = [ev(10, 1), ev(14, 2), ev(20, 3), ev(9, 4), ev(30, 5)]
    files = [events[:2], events[2:3], events[3:]]
    stream = Stream(files + [[flush_event(events, 10 * SEC)]], 10 * SEC)
    assert [b.watermark for b in stream.plan()][:4] == [0, (BASE + 9 * SEC) // MS,
                                                         (BASE + 15 * SEC) // MS,
                                                         (BASE + 25 * SEC) // MS]
    assert stream.late(stream.plan()) == {4}
    write_files(str(tmp_path / "in"), stream.files)
    run = run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"),
                    sliding_query("10 seconds"), "append")
    got = sorted((b, r.s - BASE, r.e - BASE, sorted(r.vs)) for b, _, r in output([run]))
    right = 1  # right windows start one micro-second after their row
    assert got == [
        (2, 0 * SEC, 10 * SEC, [1]),
        (2, 4 * SEC, 14 * SEC, [1, 2]),
        (3, 10 * SEC, 20 * SEC, [1, 2, 3]),
        (3, 10 * SEC + right, 20 * SEC + right, [2, 3]),
        (3, 14 * SEC + right, 24 * SEC + right, [3]),
        (4, 20 * SEC, 30 * SEC, [3, 5]),
        (4, 20 * SEC + right, 30 * SEC + right, [5]),
    ]
    check_append(stream, [run])
    assert dropped_rows([run]) == 1


@pytest.mark.every_spark
@pytest.mark.parametrize("mode,seed", [("append", 20), ("update", 21)])
def test_restart_from_checkpoint_continues_where_it_stopped(spark, rocksdb, tmp_path, mode,
                                                            seed):
    """Half of the files, stop, the other half (and the flush) with the same checkpoint: the
    two runs together emit what one uninterrupted run emits (append: no window twice)."""
    stream = generate_stream(seed, 10 * SEC, cases=5)
    half = restart_point(stream)
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "checkpoint")
    build = sliding_query("10 seconds")
    write_files(source, stream.files[:half])
    first = run_query(spark, source, checkpoint, build, mode)
    write_files(source, stream.files[half:], first=half)
    second = run_query(spark, source, checkpoint, build, mode)
    assert first.progress and second.progress
    assert min(p["batchId"] for p in second.progress) > max(p["batchId"] for p in first.progress)
    plan = batch_plan(stream, [first, second])
    assert stream.late(plan) == stream.late(stream.plan())  # as if it never stopped
    CHECKS[mode](stream, [first, second])
    assert dropped_rows([first, second]) == len(stream.late(plan))


def test_append_without_watermark_is_rejected_at_start(spark, rocksdb, tmp_path):
    write_files(str(tmp_path / "in"), [[(0, "a", BASE, 1, 1)]])
    with pytest.raises(Exception) as e:
        run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"),
                  sliding_query("10 seconds", watermark=False), "append")
    assert "watermark" in str(e.value).lower()


@pytest.mark.parametrize("mode", MODES)
def test_default_state_store_gives_the_same_output(spark, tmp_path, mode):
    """docs/contract.md: state lives in Spark's state store, RocksDB when the session selects it.
    Spark's default provider (HDFS-backed: no column families, no ordered scans) works too and emits
    the same windows at the same micro-batches, with the same late rows dropped."""
    stream = generate_stream(0, 3 * SEC, cases=CASES)
    write_files(str(tmp_path / "in"), stream.files)
    with state_store(spark, HDFS):
        run = run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"),
                        sliding_query("3 seconds"), mode)
    CHECKS[mode](stream, [run])
    assert dropped_rows([run]) == len(stream.late(batch_plan(stream, [run])))


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
def test_aggregation_without_grouping_keys(spark, rocksdb, tmp_path, function):
    """GROUP BY the window alone: one group, one state store (the operator runs in a single
    partition), through a foreachBatch sink, which checks that every state store it expects
    committed. Rows in order, none late: the emitted windows are the batch reference's."""
    seconds = [[0, 0.4, 1.1, 2.5], [3.0, 3.2, 5.9], [7.5, 8.0]]
    files, next_id = [], 0
    for batch in seconds:
        files.append([])
        for s in batch:
            files[-1].append((0, "a", BASE + int(s * SEC), next_id % 7, next_id))
            next_id += 1
    events = [e for f in files for e in f]
    files.append([flush_event(events, 2 * SEC)])  # in the same group: closes the last windows
    write_files(str(tmp_path / "in"), files)

    def build(stream: DataFrame) -> DataFrame:
        return (stream.withWatermark("ts", DELAY_TEXT)
                .groupBy(getattr(swa, function)("ts", "2 seconds"))
                .agg(F.count("*").alias("n"), F.sum("v").alias("total"),
                     F.collect_list("id").alias("ids"))
                .select(*window_micros(function), "n", "total", "ids"))

    run = run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"), build, "append")
    got = [(r.s, r.e, r.n, r.total, tuple(sorted(r.ids))) for _, r in run.rows]
    assert len(got) == len(set(got)), "a window emitted twice"
    windows_of = sliding_windows if function == "sliding_window" else batch_windows
    reference = windows_of(events, 2 * SEC, key=lambda e: None, time=lambda e: e[TIME])
    assert sorted(got) == sorted(
        (s, e, len(m), sum(x[VALUE] for x in m), tuple(sorted(x[ID] for x in m)))
        for (_, s, e), m in reference.items())
    ops = operator_metrics([run], "slidingWindowAggregate" if function == "sliding_window"
                           else "batchWindowAggregate")
    assert {op["numStateStoreInstances"] for op in ops} == {1}


@pytest.mark.parametrize("mode", MODES)
def test_decimal_aggregates_in_the_state(spark, rocksdb, tmp_path, mode):
    """sum and avg of a DECIMAL(5,2): the optimizer computes them on unscaled longs
    (DecimalAggregates), so the state keeps long buffers and the output converts them back."""
    from decimal import ROUND_HALF_UP, Decimal

    stream = generate_stream(3, 3 * SEC, cases=3)
    write_files(str(tmp_path / "in"), stream.files)

    def build(df: DataFrame) -> DataFrame:
        return (df.withWatermark("ts", DELAY_TEXT)
                .withColumn("d", (F.col("v") / 4).cast("decimal(5,2)"))
                .groupBy("case", "k", swa.sliding_window("ts", "3 seconds"))
                .agg(F.sum("d").alias("total"), F.avg("d").alias("mean"),
                     F.collect_list("id").alias("ids"))
                .select("case", "k", *window_micros(), "total", "mean", "ids"))

    run = run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"), build, mode)
    plan = batch_plan(stream, [run])
    late = stream.late(plan)
    last = {}
    for b, w, r in output([run]):
        last[w] = r  # in update mode, a window's last row is its final value
    final = stream.reference(late)
    assert set(last) == set(final), diff_message(set(last), set(final))
    for w, members in final.items():
        ds = [Decimal(m[VALUE]) / 4 for m in members]
        ds = [d.quantize(Decimal("0.01")) for d in ds]
        assert last[w].total == sum(ds), w
        assert last[w].mean == (sum(ds) / len(ds)).quantize(Decimal("0.000001"), ROUND_HALF_UP), w
        assert sorted(last[w].ids) == sorted(m[ID] for m in members), w


@pytest.mark.slow
@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
def test_window_column_keeps_the_watermark_for_a_second_aggregation(spark, rocksdb, tmp_path, function):
    """The window column carries the time column's watermark, under its default name too, as
    window() does: a second stateful operator can follow in append mode. Here the windows of
    each key are re-aggregated by their bounds; once the flush row closes everything, the
    second aggregation emitted each window's row count summed over the keys."""
    stream = generate_stream(5, 3 * SEC, cases=1)
    write_files(str(tmp_path / "in"), stream.files)
    column = getattr(swa, function)("ts", "3 seconds")

    def build(df: DataFrame) -> DataFrame:
        first = (df.withWatermark("ts", DELAY_TEXT).groupBy("case", "k", column)
                 .agg(F.count("*").alias("n")).where(F.col("k") != FLUSH_KEY))
        assert "spark.watermarkDelayMs" in first.schema[function].metadata
        return (first.groupBy(function).agg(F.sum("n").alias("rows"))
                .select(F.lit(0).alias("case"), F.lit("all").alias("k"), *window_micros(function),
                        "rows"))

    run = run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"), build, "append")
    got = sorted((r.s, r.e, r.rows) for _, r in run.rows)
    assert len(got) == len({(s, e) for s, e, _ in got}), "a window emitted twice"
    if function == "batch_window":
        return  # its windows depend on the micro-batches: the sliding case checks the values
    late = stream.late(batch_plan_of_first_operator(run))
    by_bounds: Dict[Tuple[int, int], int] = defaultdict(int)
    for (_, _, s, e), members in stream.reference(late).items():
        by_bounds[(s, e)] += len(members)
    assert got == sorted((s, e, n) for (s, e), n in by_bounds.items())


def batch_plan_of_first_operator(run: Run) -> List[Batch]:
    """What the sliding-window operator saw: the micro-batches of the run, with their
    watermarks (the harness's plan, from the progress reports)."""
    progress = sorted(run.progress, key=lambda p: p["batchId"])
    plan, read = [], 0
    for p in progress:
        before = read
        if p["numInputRows"]:
            read += 1
        plan.append(Batch(before, read, watermark_ms(p["eventTime"]["watermark"])))
    return plan


def test_restart_in_append_mode_from_an_update_mode_checkpoint(spark, rocksdb, tmp_path):
    """A checkpoint written in update mode, restarted in append mode: the append run emits each
    window that closes after the restart once, whole, and none of those that closed before (the
    update run expired rows they held and emitted them already)."""
    def event(seconds: float, row_id: int) -> Event:
        return (0, "a", BASE + int(seconds * SEC), 1, row_id)

    files = [[event(0, 0), event(1, 1)], [event(4, 2)], [event(17.5, 3)],  # update mode
             [event(18, 4)], [event(19, 5), event(30, 6)], [event(100, 7)]]  # append mode
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "checkpoint")
    build = sliding_query("10 seconds")
    write_files(source, files[:3])
    first = run_query(spark, source, checkpoint, build, "update")
    restart_watermark = watermark_ms(sorted(first.progress, key=lambda p: p["batchId"])[-1]
                                     ["eventTime"]["watermark"]) * MS
    write_files(source, files[3:], first=3)
    second = run_query(spark, source, checkpoint, build, "append")
    got = sorted((r.s, r.e, tuple(sorted(r.ids))) for _, r in second.rows)
    events = [e for f in files for e in f]
    final_watermark = max(e[TIME] for e in events) - DELAY
    expected = sorted((s, e, tuple(sorted(m[ID] for m in ms))) for (_, s, e), ms in sliding_windows(
        events, 10 * SEC, key=lambda r: r[KEY], time=lambda r: r[TIME]).items()
        if restart_watermark < e <= final_watermark)
    assert got == expected


@pytest.mark.parametrize("seed", [4])
def test_random_streams_restarted_from_update_mode_in_append_mode(spark, tmp_path, provider, seed):
    """Update mode over the first half of a random stream, then append mode from its checkpoint:
    the append run emits exactly the windows that close after the restart, once, whole, in the
    micro-batch whose watermark first reaches their end, whether or not their group receives
    rows after the restart (with RocksDB, the time index of the update run must say when)."""
    stream = generate_stream(seed, 10 * SEC, cases=5)
    half = restart_point(stream)
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "checkpoint")
    build = sliding_query("10 seconds")
    write_files(source, stream.files[:half])
    first = run_query(spark, source, checkpoint, build, "update")
    write_files(source, stream.files[half:], first=half)
    second = run_query(spark, source, checkpoint, build, "append")
    plan = batch_plan(stream, [first, second])
    restart = plan[max(p["batchId"] for p in first.progress)].watermark * MS
    expected = {w: m for w, m in stream.reference(stream.late(plan)).items() if w[3] > restart}
    quiet = {w[:2] for w in expected} - {(e[CASE], e[KEY]) for f in stream.files[half:] for e in f}
    assert quiet, "harness: every group with windows left receives rows after the restart"
    check_closed_windows(plan, expected, output([second]))


def test_update_mode_after_append_mode_leaves_no_state_of_closed_groups(spark, tmp_path):
    """A run in append mode stores each group's queue (Meta and Suffix rows); restarted in update
    mode, a group whose rows all expire loses them too: once the watermark has passed every
    window, only the flush key's row is left (read with Spark's state data source). The switch
    is refused where the checkpoint records the output mode; a checkpoint of release 0.1.0 does
    not (its record, removed here, did not exist): the query writes state format 1, as 0.1.0
    did."""
    if not has_state_reader(spark):
        pytest.skip(f"Spark {spark.version} has no state data source")
    events = [(0, k, BASE + t * SEC, 1, i) for i, (k, t) in enumerate(
        [("a", 0), ("b", 1), ("a", 4), ("a", 12), ("b", 13), ("a", 30), ("b", 31)])]
    files = [events[:3], events[3:5], events[5:]]
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "checkpoint")
    build = sliding_query("10 seconds")
    with state_store(spark, HDFS), state_format(spark, 1):
        write_files(source, files[:2])
        run_query(spark, source, checkpoint, build, "append")
        stored = spark.read.format("statestore").option("operatorId", 1000).load(checkpoint)
        assert stored.where("key.__kind != 0").count() > 0  # the append run stored queues
        shutil.rmtree(os.path.join(checkpoint, "state", "1000", "_sliding_window_agg"))
        write_files(source, files[2:] + [[flush_event(events, 10 * SEC)]], first=2)
        run_query(spark, source, checkpoint, build, "update")
        left = spark.read.format("statestore").option("operatorId", 1000).load(checkpoint)
        assert [(r.k, r.kind) for r in left.selectExpr("key.k", "key.__kind AS kind").collect()] == [
            (FLUSH_KEY, 0)]


def test_update_mode_leaves_windows_whose_rows_did_not_change(spark, rocksdb, tmp_path):
    """A new row at 7 s - 1 us has a right window [7 s, 17 s] with the bounds of the left
    window of the row at 17 s, and the same rows: that window did not change and is not
    emitted again (check_update requires exactly the changed windows)."""
    files = [[(0, "a", BASE + 10 * SEC, 1, 0), (0, "a", BASE + 17 * SEC, 1, 1)],
             [(0, "a", BASE + 7 * SEC - 1, 1, 2)]]
    events = [e for f in files for e in f]
    stream = Stream(files + [[flush_event(events, 10 * SEC)]], 10 * SEC)
    write_files(str(tmp_path / "in"), stream.files)
    run = run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"),
                    sliding_query("10 seconds"), "update")
    check_update(stream, [run])
    assert sorted(w[2:] for b, w, _ in output([run]) if b == 1) == [
        (BASE - 3 * SEC - 1, BASE + 7 * SEC - 1), (BASE, BASE + 10 * SEC)]
