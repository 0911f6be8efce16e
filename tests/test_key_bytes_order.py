"""On RocksDB with ordered rows (Spark 4.2 and later), the streaming operator's input is sorted
with its groups in the byte order of their state keys (docs/architecture.md,
"`StreamingWindowedAggregateExec`: the operator"), not in the order of the keys' values: the plan says so, and the windows are those of
the reference, as with the keys' own order (`spark.sql.slidingWindow.state.keyBytesOrder` off)."""
from __future__ import annotations

import random

import pytest
from pyspark.sql import functions as F

import sliding_window_agg as swa
from reference import sliding_windows
from streaming_harness import (BASE, QUERY_TIMEOUT, ROCKSDB, SEC, has_ordered_rows, read_stream,
                               session_conf, state_store, write_files)
from windows_util import rows_by_window, window_micros

KEY_BYTES_ORDER_CONF = "spark.sql.slidingWindow.state.keyBytesOrder"
SIZE = 10 * SEC
# A last row far ahead, of a group of its own, closes every window of the others.
FLUSH = (99, "flush", BASE + 10_000 * SEC, 0, 0)


def events(seed: int):
    rnd = random.Random(seed)
    names = [None, "", "a", "b", "ab", "ba", "bb", "é", "zzzzzzzzz", "a" * 17]
    files = []
    for f in range(3):
        files.append([(rnd.choice([-1, 0, 1, 256, 70000]), rnd.choice(names),
                       BASE + (f * 30 + rnd.randrange(30)) * SEC, rnd.randrange(100), 0)
                      for _ in range(60)])
    return files + [[FLUSH]]


def run(spark, source, checkpoint):
    rows = []
    stream = read_stream(spark, source).withWatermark("ts", "5 seconds")
    query = (stream.groupBy("case", "k", swa.sliding_window("ts", "10 seconds"))
             .agg(F.sum("v").alias("total"), F.count("*").alias("n"))
             .select("case", "k", *window_micros(), "total", "n")
             .writeStream.outputMode("append")
             .foreachBatch(lambda batch, _: rows.extend(batch.collect()))
             .option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
    try:
        assert query.awaitTermination(QUERY_TIMEOUT)
        plan = query._jsq.streamingQuery().lastExecution().executedPlan().toString()
    finally:
        query.stop()
    return rows, plan


@pytest.mark.every_spark
@pytest.mark.parametrize("by_key_bytes", [True, False])
def test_groups_in_the_byte_order_of_their_keys(spark, tmp_path, by_key_bytes):
    if not has_ordered_rows(spark, ROCKSDB):
        pytest.skip("RocksDB state ordered by time within each group: Spark 4.2 and later")
    files = events(7)
    source = str(tmp_path / "in")
    write_files(source, files)
    with state_store(spark, ROCKSDB), session_conf(spark, KEY_BYTES_ORDER_CONF, str(by_key_bytes).lower()):
        rows, plan = run(spark, source, str(tmp_path / "checkpoint"))
    sort = next(line for line in plan.splitlines() if "Sort [" in line)
    if by_key_bytes:
        # nullable string key: null bits, each key's slot, then the string's bytes
        assert "key_null_bits_order(case#" in sort and "key_bytes_order(k#" in sort, plan
    else:
        assert "key_bytes_order" not in plan and "Sort [case#" in sort, plan

    expected = {(c, k, s, e): (sum(m[3] for m in ms), len(ms)) for ((c, k), s, e), ms in sliding_windows(
        [e for f in files[:-1] for e in f], SIZE, key=lambda r: (r[0], r[1]), time=lambda r: r[2]).items()}
    got = {w: (r.total, r.n) for w, r in rows_by_window(rows, ["case", "k"]).items() if w[1] != FLUSH[1]}
    assert got == expected
