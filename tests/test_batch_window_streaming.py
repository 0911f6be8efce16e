"""Batch windows in Structured Streaming (docs/contract.md, "Batch windows"), checked differentially
against the brute-force simulation of batch_window_harness.py, over random streams with late rows
split into random micro-batches (the file-source harness of streaming_harness.py: one file per
micro-batch, availableNow, the micro-batches Spark ran read back from its progress reports).
"""
from __future__ import annotations

import pytest

from collections import defaultdict
from typing import Dict

from batch_window_harness import (CHECKS, OPERATOR, SIZES, Window, aggregates, batch_window_query,
                                  emitted, expected, run, simulate)
from streaming_harness import (FLUSH_KEY, HDFS, ROCKSDB, SEC, TIME, VERIFY_ROW_COUNT_CONF, Batch, Stream,
                               batch_plan, generate_stream, has_time_index, operator_metrics, run_query,
                               session_conf, state_store, write_files)


# One stream per mode: BatchWindowsHarnessSuite runs hundreds more, over both stores.
@pytest.mark.parametrize("mode,size_text,seed", [(mode, "2 seconds", 0) for mode in CHECKS])
def test_random_streams_match_the_simulation(spark, tmp_path, mode, size_text, seed):
    stream = generate_stream(100 + seed, SIZES[size_text], cases=6)
    result = run(spark, tmp_path, stream, size_text, mode)
    sim = CHECKS[mode](stream, [result], SIZES[size_text])
    metrics = operator_metrics([result], OPERATOR)
    assert sum(op["numRowsDroppedByWatermark"] for op in metrics) == 0  # never dropped
    assert all("numWindowsEmitted" in op["customMetrics"] for op in metrics)
    # The streams do have rows that sliding windows would drop as late, and they moved here:
    # some window holds a row older than its start.
    late_moved = [w for w, (_, rows) in sim.closed.items() if any(e[TIME] < w[2] for e in rows)]
    assert late_moved


@pytest.mark.parametrize("mode", list(CHECKS))
def test_default_state_store_gives_the_same_output(spark, tmp_path, mode):
    stream = generate_stream(7, 2 * SEC, cases=6)
    result = run(spark, tmp_path, stream, "2 seconds", mode, provider=HDFS)
    CHECKS[mode](stream, [result], 2 * SEC)


@pytest.mark.every_spark
@pytest.mark.parametrize("mode", list(CHECKS))
def test_restart_from_checkpoint_emits_what_one_run_emits(spark, tmp_path, mode):
    stream = generate_stream(9, 2 * SEC, cases=5)
    size = 2 * SEC
    half = len(stream.files) // 2
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "checkpoint")
    write_files(source, stream.files[:half])
    with state_store(spark, ROCKSDB):
        first = run_query(spark, source, checkpoint, batch_window_query("2 seconds"), mode)
        write_files(source, stream.files[half:], first=half)
        second = run_query(spark, source, checkpoint, batch_window_query("2 seconds"), mode)
    assert min(p["batchId"] for p in second.progress) > max(p["batchId"] for p in first.progress)
    CHECKS[mode](stream, [first, second], size)
    # The same windows with the same rows as an uninterrupted run.
    uninterrupted = simulate(stream, stream.plan(), size)
    final = {}
    for _, w, r in emitted([first, second]):
        final[w] = aggregates(r)
    assert final == {w: expected(rows) for w, (_, rows) in uninterrupted.closed.items()
                     if w[1] != FLUSH_KEY} | ({} if mode == "append" else {
                         w: expected(rows) for w, rows in uninterrupted.still_open.items()
                         if w[1] != FLUSH_KEY})


@pytest.mark.parametrize("provider", [ROCKSDB, HDFS])
def test_state_holds_only_each_groups_open_window(spark, tmp_path, provider):
    """After every micro-batch, the operator's state rows are the groups with an open window
    (with a time index, RocksDB on Spark 4, two rows per window: the window and its entry in
    the index). As users run it: with a time index, the operator counts the rows, RocksDB not."""
    rows_per_window = 2 if has_time_index(spark, provider) else 1
    stream = generate_stream(3, 2 * SEC, cases=6)
    with session_conf(spark, VERIFY_ROW_COUNT_CONF, "false"):
        result = run(spark, tmp_path, stream, "2 seconds", "append", provider=provider)
    plan = batch_plan(stream, [result])
    progress = sorted(result.progress, key=lambda p: p["batchId"])
    for b, p in enumerate(progress):
        sim = simulate(stream, plan[:b + 1], 2 * SEC)
        op = [o for o in p["stateOperators"] if o["operatorName"] == OPERATOR][0]
        assert op["numRowsTotal"] == rows_per_window * len(sim.still_open), (b, op, sim.still_open)


def test_update_mode_without_watermark(spark, tmp_path):
    """Without a watermark, stream time alone moves windows on; update mode needs none."""
    stream = generate_stream(4, 2 * SEC, cases=4)
    write_files(str(tmp_path / "in"), stream.files)
    with state_store(spark, ROCKSDB):
        result = run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"),
                           batch_window_query("2 seconds", watermark=False), "update")
    # No watermark: every batch runs with watermark 0 (no eventTime.watermark reported).
    no_wm = Stream(stream.files, stream.size, delay=10 ** 18)
    plan = [Batch(p.files_before, p.files_through, 0) for p in no_wm.plan()]
    plan = plan[:len(result.progress)]
    sim = simulate(stream, plan, 2 * SEC)
    got: Dict[int, Dict[Window, tuple]] = defaultdict(dict)
    for b, w, r in emitted([result]):
        got[b][w] = aggregates(r)
    for b in range(len(plan)):
        assert got[b] == {w: expected(rows) for w, rows in sim.changed[b].items()
                          if w[1] != FLUSH_KEY}, b


def test_append_without_watermark_is_rejected_at_start(spark, tmp_path):
    write_files(str(tmp_path / "in"), [[(0, "a", 1_700_000_000 * SEC, 1, 1)]])
    with pytest.raises(Exception) as e:
        run_query(spark, str(tmp_path / "in"), str(tmp_path / "checkpoint"),
                  batch_window_query("2 seconds", watermark=False), "append")
    assert "watermark" in str(e.value).lower()
