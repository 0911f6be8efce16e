"""Checkpoints written by every earlier release restart with the current code (docs/streaming.md,
"Upgrading"): each fixture of tests/fixtures/checkpoints/ (see support/checkpoint_fixtures.py) is a query
stopped half-way with windows still open. Restarted here, it reads the rest of its input; both
runs together must emit what the brute-force references say one uninterrupted run emits: in
append mode every window once, final, in the micro-batch whose watermark reaches its end; in
update mode the current row of exactly the changed windows in each micro-batch."""
from __future__ import annotations

import os

import pytest

import batch_window_harness
import streaming_harness
from checkpoint_fixtures import Fixture, all_fixtures, oldest_spark_for_checkpoint, query
from streaming_harness import FLUSH_KEY, ROCKSDB, run_query, spark_version, state_store

FIXTURES = all_fixtures()


def test_every_release_has_a_fixture_of_each_kind():
    """Both window functions, both output modes, both state stores, for every release."""
    by_release = {}
    for f in FIXTURES:
        by_release.setdefault(f.meta["release"], set()).add(
            (f.function, f.mode, f.meta["store"]))
    assert "0.1.0" in by_release
    for release, kinds in by_release.items():
        # Checkpoints of earlier Spark versions (spark-X.Y): RocksDB only, whose arrangement of
        # the state depends on the Spark version (docs/compatibility.md).
        stores = ("rocksdb",) if release.startswith("spark-") else ("rocksdb", "default")
        assert kinds == {(fn, m, s) for fn in ("sliding_window", "batch_window")
                         for m in ("append", "update") for s in stores}, release


def oldest_spark_for(fixture: Fixture) -> tuple:
    """The oldest Spark that runs the fixture's state arrangement; a checkpoint without a record
    (0.1.0, written on Spark 4.3) has both a time index and ordered rows with RocksDB."""
    return oldest_spark_for_checkpoint(os.path.join(fixture.folder, "checkpoint"),
                                       default=fixture.store == ROCKSDB)


def tier(fixture: Fixture):
    """A release's checkpoints written on the default Spark restart in every tier; those written
    on another Spark (`spark-X.Y`, `<release>-spark-X.Y`: the state arranged as that Spark
    allows, docs/compatibility.md) in the slow tier."""
    return pytest.param(fixture, marks=pytest.mark.slow) if "spark-" in fixture.meta["release"] else fixture


@pytest.mark.parametrize("fixture", [tier(f) for f in FIXTURES], ids=lambda f: f.name)
def test_checkpoint_of_an_earlier_release_restarts(spark, tmp_path, fixture: Fixture):
    if spark_version(spark) < oldest_spark_for(fixture):
        pytest.skip(f"Spark {spark.version} refuses this arrangement of the state "
                    "(test_checkpoint_arranged_for_a_later_spark_is_refused_clearly)")
    stream = fixture.stream()
    first = fixture.first_run()
    assert 0 < fixture.files_read < len(stream.files) - 1, "the fixture stopped half-way"
    source, checkpoint = fixture.restore(str(tmp_path))
    with state_store(spark, fixture.store):
        second = run_query(spark, source, checkpoint, query(fixture.function, fixture.size_text),
                           fixture.mode)
    assert min(p["batchId"] for p in second.progress) == len(first.progress), \
        "the restarted query continues from the checkpoint's next micro-batch"
    assert any(r.k != FLUSH_KEY for _, r in second.rows), "windows were still open at the stop"
    if fixture.function == "sliding_window":
        streaming_harness.CHECKS[fixture.mode](stream, [first, second])
    else:
        batch_window_harness.CHECKS[fixture.mode](stream, [first, second], stream.size)


def test_fixture_paths_are_portable():
    """No fixture names the folder it was written in (the input path is a placeholder)."""
    for f in FIXTURES:
        for root, _, names in os.walk(os.path.join(f.folder, "checkpoint", "sources")):
            for name in names:
                with open(os.path.join(root, name)) as text:
                    assert "/tmp" not in text.read(), os.path.join(root, name)


@pytest.mark.every_spark
def test_checkpoint_arranged_for_a_later_spark_is_refused_clearly(spark, tmp_path):
    """0.1.0's RocksDB checkpoints were written on Spark 4.3, with a time index in a column
    family and a group's rows ordered by time (docs/compatibility.md): Spark 3.5 has no column
    families and 4.0/4.1 no ordered range scans, so there the restart fails before any
    micro-batch runs, with a condition that says why (4.2 and later restart them above)."""
    version = tuple(int(p) for p in spark.version.split(".")[:2])
    if version >= (4, 2):
        pytest.skip(f"Spark {spark.version} reads every arrangement (test_checkpoint_of_an_earlier_release_restarts)")
    fixture = next(f for f in FIXTURES if f.meta["release"] == "0.1.0" and f.meta["store"] == "rocksdb"
                   and f.function == "sliding_window" and f.mode == "append")
    source, checkpoint = fixture.restore(str(tmp_path))
    with state_store(spark, fixture.store), pytest.raises(Exception) as e:
        run_query(spark, source, checkpoint, query(fixture.function, fixture.size_text), fixture.mode)
    message = str(e.value)
    assert "[WINDOW_STATE_STORAGE_UNSUPPORTED]" in message, message
    assert f"this is Spark {spark.version}" in message
    needs = "column family" if version < (4, 0) else "ordered by time"
    assert needs in message, message
    assert not os.path.exists(os.path.join(checkpoint, "commits", str(len(fixture.first_run().progress)))), \
        "no micro-batch committed"
