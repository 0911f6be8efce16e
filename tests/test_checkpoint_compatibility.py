"""A query restarted from its checkpoint keeps the state it started with (docs/streaming.md,
"Restarting a changed query"): the state format version is recorded in the checkpoint when the
query first starts; a restart that changed what the state depends on fails with a clear error
before any micro-batch runs; a change the state does not depend on keeps working."""
from __future__ import annotations

import json
import os
from typing import Callable

import pytest
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

import sliding_window_agg as swa
from checkpoint_fixtures import all_fixtures, query
from error_conditions import assert_condition, run_time_cause
from reference import sliding_windows
from streaming_harness import (BASE, HDFS, QUERY_TIMEOUT, SEC, committed_batches, read_stream, run_query,
                               state_store, write_files)
from windows_util import find_node, window_micros

RECORD = os.path.join("state", "1000", "_sliding_window_agg", "operator.json")

Query = Callable[[DataFrame], DataFrame]


def windowed(window=lambda: swa.sliding_window("ts", "10 seconds"), keys=("k",),
             aggregates=lambda: [F.sum("v").alias("total")], select=None,
             where=None, watermark="ts") -> Query:
    """groupBy(keys, window).agg(aggregates), with an optional SELECT list and filter above."""
    def build(stream: DataFrame) -> DataFrame:
        stream = stream.withColumn("k2", F.col("k")).withColumn("ts2", F.col("ts"))
        df = stream.withWatermark(watermark, "5 seconds").groupBy(*keys, window()).agg(*aggregates())
        if where is not None:
            df = df.where(where)
        return df.select(*select) if select is not None else df

    return build


# The first file closes some windows (its watermark passes them), the second leaves some open,
# the last one, far ahead, closes the rest.
FILES = [[(0, "a", BASE + 3 * i * SEC, i, i) for i in range(6)],
         [(0, "a", BASE + (20 + 3 * i) * SEC, i, 10 + i) for i in range(4)],
         [(0, "a", BASE + 90 * SEC, 9, 20)]]


def first_run(spark, tmp_path, query: Query, mode: str = "append"):
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "checkpoint")
    write_files(source, FILES[:1])
    run = run_query(spark, source, checkpoint, query, mode)
    write_files(source, FILES[1:], first=1)
    return source, checkpoint, run


CHANGES = {
    "window size": (windowed(), windowed(window=lambda: swa.sliding_window("ts", "20 seconds")),
                    "'10 seconds'", "'20 seconds'"),
    "window function": (windowed(), windowed(window=lambda: swa.batch_window("ts", "10 seconds")),
                        "sliding_window", "batch_window"),
    "time column": (windowed(), windowed(window=lambda: swa.sliding_window("ts2", "10 seconds"),
                                            watermark="ts2"),
                    "`ts` TIMESTAMP", "`ts2` TIMESTAMP"),
    "order column": (windowed(window=lambda: swa.batch_window("ts", "10 seconds", "id")),
                     windowed(window=lambda: swa.batch_window("ts", "10 seconds", "v")),
                     "`id` BIGINT", "`v` BIGINT"),
    "grouping keys": (windowed(), windowed(keys=("k2",)), "[`k` STRING]", "[`k2` STRING]"),
    "aggregate functions": (windowed(), windowed(aggregates=lambda: [F.max("v").alias("total")]),
                            "[#1 sum(v)]", "[#1 max(v)]"),
}


@pytest.mark.parametrize("what", list(CHANGES))
def test_a_changed_query_is_refused_before_any_micro_batch(spark, tmp_path, what):
    """The record does not depend on the state store: checked on the default one."""
    before, after, old, new = CHANGES[what]
    source, checkpoint, first = first_run(spark, tmp_path, before)
    assert first.progress
    committed = committed_batches(checkpoint)
    with pytest.raises(Exception) as e:
        run_query(spark, source, checkpoint, after, "append")
    message = str(e.value)
    assert_condition(run_time_cause(e.value), "WINDOW_STATE_INCOMPATIBLE_RESTART")
    assert f"changed the {what} of its" in message and f"from {old} to {new}" in message, message
    assert "new checkpoint location" in message
    assert committed_batches(checkpoint) == committed  # nothing ran


def test_a_new_query_records_its_state_format(spark, tmp_path):
    _, checkpoint, _ = first_run(spark, tmp_path, windowed())
    with open(os.path.join(checkpoint, RECORD)) as f:
        record = json.load(f)
    assert record == {"stateFormatVersion": 2, "function": "sliding_window", "size": "'10 seconds'",
                      "time": "`ts` TIMESTAMP", "keys": ["`k` STRING"], "aggregates": ["sum(v)"],
                      # what it computes (docs/streaming.md, "Restarting a changed query")
                      "aggregateIdentities": ["AggregateExpression(Sum(v BIGINT), isDistinct=false, filter=None) "
                                              "RETURNS BIGINT"],
                      "identityForm": 2,
                      "bufferTypes": ["BIGINT"],
                      "outputMode": "Append",
                      # the default provider: no time index (docs/compatibility.md)
                      "timeIndex": False, "orderedRows": False}


def test_what_the_state_does_not_depend_on_may_change(spark, provider, tmp_path):
    """The SELECT list above the aggregation and a filter after it: the restart runs on, and the
    two runs together emit every window once with its final value."""
    source, checkpoint, first = first_run(
        spark, tmp_path, windowed(select=["k", *window_micros(), "total"]))
    changed = windowed(where=F.col("total") >= 0,
                       select=["k", *window_micros(), F.col("total").alias("sum_of_v")])
    second = run_query(spark, source, checkpoint, changed, "append")
    events = [e for f in FILES[:-1] for e in f]
    expected = {(s, e): sum(m[3] for m in ms) for (_, s, e), ms in sliding_windows(
        events, 10 * SEC, key=lambda r: r[1], time=lambda r: r[2]).items()}
    got = {(r.s, r.e): r.total for _, r in first.rows}
    for _, r in second.rows:
        if r.s < BASE + 80 * SEC:  # not the last row's windows
            assert (r.s, r.e) not in got, "emitted twice"
            got[(r.s, r.e)] = r.sum_of_v
    assert first.rows and got == expected


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
def test_append_then_update_is_refused_update_then_append_is_not(spark, tmp_path, function):
    """Update mode emits changed windows only: after an append run, the windows open at the
    restart that receive no more rows would never be emitted, so the switch is refused. Append
    mode after update mode emits every window when it closes: allowed, and recorded, so that
    switching back is refused too."""
    window = lambda: getattr(swa, function)("ts", "10 seconds")  # noqa: E731
    source, checkpoint, _ = first_run(spark, tmp_path, windowed(window=window), mode="append")
    with pytest.raises(Exception) as e:
        run_query(spark, source, checkpoint, windowed(window=window), "update")
    message = str(e.value)
    assert_condition(run_time_cause(e.value), "WINDOW_STATE_INCOMPATIBLE_RESTART")
    assert "changed the output mode of its" in message and "from Append to Update" in message

    other = tmp_path / "other"
    other.mkdir()
    source, checkpoint, _ = first_run(spark, other, windowed(window=window), mode="update")
    write_files(source, [[(0, "a", BASE + 200 * SEC, 1, 30)]], first=len(FILES))
    run_query(spark, source, checkpoint, windowed(window=window), "append")
    with open(os.path.join(checkpoint, RECORD)) as f:
        assert json.load(f)["outputMode"] == "Append"
    write_files(source, [[(0, "a", BASE + 300 * SEC, 1, 31)]], first=len(FILES) + 1)
    with pytest.raises(Exception) as e:
        run_query(spark, source, checkpoint, windowed(window=window), "update")
    assert "from Append to Update" in str(e.value)


def test_a_checkpoint_of_an_unknown_state_format_is_refused(spark, tmp_path):
    source, checkpoint, _ = first_run(spark, tmp_path, windowed())
    path = os.path.join(checkpoint, RECORD)
    with open(path) as f:
        record = json.load(f)
    record["stateFormatVersion"] = 99  # as a later release would write it
    with open(path, "w") as f:
        json.dump(record, f)
    os.remove(os.path.join(os.path.dirname(path), ".operator.json.crc"))  # Hadoop's checksum
    committed = committed_batches(checkpoint)
    with pytest.raises(Exception) as e:
        run_query(spark, source, checkpoint, windowed(), "append")
    message = str(e.value)
    assert_condition(run_time_cause(e.value), "WINDOW_STATE_FORMAT_UNSUPPORTED")
    assert "version 99" in message, message
    assert committed_batches(checkpoint) == committed


def test_a_checkpoint_without_a_record_is_version_1_and_gets_one(spark, tmp_path):
    """Release 0.1.0 wrote no record: its state is version 1, recorded at the first restart, so
    that the next restart of a changed query is refused."""
    fixture = next(f for f in all_fixtures()
                   if f.meta["release"] == "0.1.0" and f.function == "sliding_window"
                   and f.mode == "append" and f.meta["store"] == "default")
    assert not os.path.exists(os.path.join(fixture.folder, "checkpoint", RECORD))
    source, checkpoint = fixture.restore(str(tmp_path))
    with state_store(spark, HDFS):
        run_query(spark, source, checkpoint, query(fixture.function, fixture.size_text), "append")
        with open(os.path.join(checkpoint, RECORD)) as f:
            assert json.load(f)["stateFormatVersion"] == 1
        later = max(e[2] for e in fixture.stream().files[-1]) + 60 * SEC
        write_files(source, [[(0, "late-comer", later, 1, 10 ** 6)]], first=len(os.listdir(source)))
        with pytest.raises(Exception) as e:
            run_query(spark, source, checkpoint, query(fixture.function, "20 seconds"), "append")
    assert_condition(run_time_cause(e.value), "WINDOW_STATE_INCOMPATIBLE_RESTART")


def test_a_running_query_shows_its_state_format_version(spark, tmp_path):
    """explain() of a running query, and the operator's EXPLAIN FORMATTED block, show the
    version its state is written in, and how it is arranged."""
    source = str(tmp_path / "in")
    write_files(source, FILES)
    query = (windowed()(read_stream(spark, source)).writeStream.format("noop")
             .outputMode("append").option("checkpointLocation", str(tmp_path / "checkpoint"))
             .trigger(availableNow=True).start())
    try:
        assert query.awaitTermination(QUERY_TIMEOUT)
        plan = query._jsq.streamingQuery().lastExecution().executedPlan()
    finally:
        query.stop()
    assert "stateFormatVersion=2, stateStorage=scan, mode=Append" in plan.toString()
    operator = find_node(plan, "SlidingWindowAggregate")
    block = operator.verboseStringWithOperatorId()
    assert "State format version: 2" in block and "Output mode: Append" in block, block
    assert "State arrangement: scan" in block, block
    assert "Window: sliding_window(ts#" in block, block
