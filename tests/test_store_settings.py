"""The operator opens its RocksDB state stores (Spark 4.0 and later) with changelog checkpointing
on unless the session sets it (docs/streaming.md, "Choosing the state store"): a commit writes the
micro-batch's changes, not RocksDB's files. A checkpoint written either way restarts with the
other, with the reference's windows."""
from __future__ import annotations

import contextlib
import glob
import os

import pytest
from pyspark.sql import functions as F

import sliding_window_agg as swa
from reference import sliding_windows
from streaming_harness import (BASE, ROCKSDB, SEC, has_time_index, run_query, session_conf, state_store,
                               write_files)
from windows_util import rows_by_window, window_micros

CHANGELOG_CONF = "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled"
SIZE = 10 * SEC
# Two groups; the second file closes some windows, the last one, far ahead, the rest.
FILES = [[(0, k, BASE + (3 * i + j) * SEC, i, 0) for i in range(6) for j, k in enumerate("ab")],
         [(0, k, BASE + (25 + 4 * i) * SEC, 10 + i, 0) for i in range(4) for k in "ab"],
         [(0, "flush", BASE + 1000 * SEC, 0, 0)]]


def windowed(stream):
    return (stream.withWatermark("ts", "5 seconds").groupBy("k", swa.sliding_window("ts", "10 seconds"))
            .agg(F.sum("v").alias("total")).select("k", *window_micros(), "total"))


def changelogs(checkpoint):
    return glob.glob(os.path.join(checkpoint, "state", "**", "*.changelog"), recursive=True)


@pytest.mark.every_spark
@pytest.mark.parametrize("first, second", [(None, "false"), ("false", None)])
def test_changelog_checkpointing_unless_the_session_sets_it(spark, tmp_path, first, second):
    if not has_time_index(spark, ROCKSDB):
        pytest.skip("the operator's own store settings: Spark 4.0 and later")
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "checkpoint")
    rows = []
    for i, value in enumerate((first, second)):
        write_files(source, FILES[:1] if i == 0 else FILES[1:], first=i)
        before = set(changelogs(checkpoint))
        if value is None:
            spark.conf.unset(CHANGELOG_CONF)
        setting = contextlib.nullcontext() if value is None else session_conf(spark, CHANGELOG_CONF, value)
        with state_store(spark, ROCKSDB), setting:
            run = run_query(spark, source, checkpoint, windowed, "append")
        rows += [r for _, r in run.rows]
        written = set(changelogs(checkpoint)) - before
        if value is None:
            assert written, "no changelog written with the session's setting unset"
        else:
            assert not written, f"changelogs written with {CHANGELOG_CONF}={value}: {sorted(written)}"
    got = {w: r.total for w, r in rows_by_window(rows, ["k"]).items() if w[0] != "flush"}
    expected = {(k, s, e): sum(m[3] for m in ms) for (k, s, e), ms in sliding_windows(
        [e for f in FILES[:-1] for e in f], SIZE, key=lambda r: r[1], time=lambda r: r[2]).items()}
    assert got == expected
