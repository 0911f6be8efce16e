"""State stays bounded on an endless stream: only what open windows need is kept."""
from __future__ import annotations

import time

import pytest
from pyspark.sql import functions as F

import sliding_window_agg as swa
from streaming_harness import (INLINE_ROWS_CONF, ROCKSDB, has_ordered_rows, has_time_index,
                               progress_dict, session_conf, state_format)


@pytest.mark.slow
@pytest.mark.parametrize("provider,state_format_version", [(ROCKSDB, 2), (None, 1)])
def test_state_rows_stop_growing_at_a_steady_rate(spark, tmp_path, provider, state_format_version):
    """A steady stream from the rate source: the state stays at the level of the open windows.
    State format 1 removes each expired partial's row; format 2 keeps a small group in one
    record, which expired partials leave (its size stays bounded), and removes only time index
    entries (RocksDB on Spark 4)."""
    previous = spark.conf.get("spark.sql.streaming.stateStore.providerClass")
    if provider:
        spark.conf.set("spark.sql.streaming.stateStore.providerClass", provider)
    try:
        stream = (spark.readStream.format("rate").option("rowsPerSecond", 200).load()
                  .withWatermark("timestamp", "1 second")
                  .groupBy((F.col("value") % 5).alias("k"), swa.sliding_window("timestamp", "2 seconds"))
                  .agg(F.count("*").alias("n")))
        with state_format(spark, state_format_version):
            query = (stream.writeStream.format("noop").outputMode("append")
                     .option("checkpointLocation", str(tmp_path / "ck"))
                     .trigger(processingTime="500 milliseconds").start())
        try:
            deadline = time.time() + 120
            while len([p for p in query.recentProgress if progress_dict(p)["numInputRows"] > 0]) < 18:
                assert time.time() < deadline, "the stream made too little progress"
                assert query.exception() is None, query.exception()
                time.sleep(0.5)
        finally:
            query.stop()
        progress = [progress_dict(p) for p in query.recentProgress]
        progress = [p for p in progress if p["stateOperators"]]
        assert all(p["stateOperators"][0]["operatorName"] == "slidingWindowAggregate" for p in progress)
        with_input = [p["stateOperators"][0] for p in progress if p["numInputRows"] > 0]
        third = len(with_input) // 3
        # Input keeps arriving at the same rate: state stays at the level of the open windows,
        # in rows, and in bytes where the provider reports its state's size (the default one:
        # RocksDB's memoryUsedBytes is its memtables and caches).
        for measure in ("numRowsTotal",) + (("memoryUsedBytes",) if provider is None else ()):
            state = [o[measure] for o in with_input]
            middle, last = state[third:2 * third], state[2 * third:]
            assert max(last) > 0, (measure, state)
            assert max(last) <= 1.5 * max(middle), (measure, state)
        # Windows close and state is evicted all along, in data and no-data batches alike
        # (the rate source stamps a second of rows at once, so the watermark often moves
        # between batches and a no-data batch does the emitting).
        late = [p["stateOperators"][0] for p in progress[len(progress) // 2:]]
        assert sum(o["customMetrics"]["numWindowsEmitted"] for o in late) > 0
        if state_format_version == 1 or has_time_index(spark, provider or ""):
            assert sum(o["numRowsRemoved"] for o in late) > 0
    finally:
        spark.conf.set("spark.sql.streaming.stateStore.providerClass", previous)


@pytest.mark.slow
@pytest.mark.parametrize("state_format_version,inline_rows", [(2, 0)])
def test_work_per_micro_batch_does_not_grow_with_the_state(spark, tmp_path, state_format_version, inline_rows):
    """The same steady stream with a 1-second and a 10-second window: the second keeps ten
    times more state, yet each micro-batch reads about as many state rows (numStateRowsRead),
    because a micro-batch only touches the groups whose windows close, and of each group only the
    windows it closes and the rows it adds or expires (docs/contract.md: finding closing windows
    costs in proportion to them, not to the state). A design that re-read open windows would read
    ten times more. This counts rows, so it holds on any machine. Without a time index (Spark
    3.5) every group is visited in every micro-batch, and without range scans (4.0, 4.1) a group's
    rows of a kind are read whole, as docs/compatibility.md says.

    State format 2 holds for groups that keep their rows as rows of their own (here all of them,
    with a limit of 0); a group small enough to live in its record is read whole, so its bytes
    grow with the window (docs/performance.md, "Structured Streaming")."""
    if not has_ordered_rows(spark, ROCKSDB):
        pytest.skip(f"RocksDB state on Spark {spark.version} has no time index (3.5) or reads a "
                    "group's rows of a kind whole (4.0, 4.1): its reads grow with the state")
    from streaming_harness import SEC, run_query, state_store, write_files

    base = 1_700_000_000 * SEC
    files = []  # 40 micro-batches, one second of event time each, 5 groups x 40 rows
    for b in range(40):
        files.append([(0, f"g{g}", base + b * SEC + i * (SEC // 40) + g, 1, b * 1000 + g * 40 + i)
                      for g in range(5) for i in range(40)])
    write_files(str(tmp_path / "in"), files)

    def steady_state(size: str):
        build = lambda df: (df.withWatermark("ts", "1 second")  # noqa: E731
                            .groupBy("k", swa.sliding_window("ts", size))
                            .agg(F.count("*").alias("n"), F.sum("v").alias("total")))
        with state_store(spark, ROCKSDB), state_format(spark, state_format_version), \
                session_conf(spark, INLINE_ROWS_CONF, str(inline_rows if inline_rows is not None else 512)):
            run = run_query(spark, str(tmp_path / "in"), str(tmp_path / f"ck-{size}"), build, "append")
        ops = [[o for o in p["stateOperators"] if o["operatorName"] == "slidingWindowAggregate"][0]
               for p in sorted(run.progress, key=lambda p: p["batchId"]) if p["numInputRows"] > 0]
        late = ops[len(ops) // 2:]  # the windows are full from the 11th batch on
        emitted = sum(o["customMetrics"]["numWindowsEmitted"] for o in late)
        assert emitted > 0
        return (sum(o["customMetrics"]["numStateRowsRead"] for o in late) / len(late),
                sum(o["numRowsTotal"] for o in late) / len(late), emitted / len(late))

    reads_small, state_small, out_small = steady_state("1 second")
    reads_large, state_large, out_large = steady_state("10 seconds")
    print(f"reads {reads_small} -> {reads_large}, state {state_small} -> {state_large}, out {out_small} -> {out_large}")
    assert state_large > 3 * state_small, (state_small, state_large)
    assert abs(out_large - out_small) <= 0.1 * out_small, (out_small, out_large)
    assert reads_large <= 1.5 * reads_small, (reads_small, reads_large, state_small, state_large)
    # And in absolute terms: a few reads per input row and window emitted.
    assert reads_large <= 4 * (200 + out_large), (reads_large, out_large)


def test_driver_logs_the_state_format_once_per_run_and_warns_without_rocksdb(spark, tmp_path):
    """INFO with the state format version, and with the default provider a WARN to use RocksDB:
    each once per run of a query, however many micro-batches it plans."""
    logger = "org.apache.spark.sql.slidingwindow.planning.StreamingQueryLog"
    capture = spark._jvm.org.apache.spark.sql.slidingwindow.LogCapture.of(logger)
    source = tmp_path / "in"
    source.mkdir()

    def add_file(i):
        (source / f"{i}.json").write_text(f'{{"k": "a", "t": {i * 1_000_000}}}\n')

    def run(checkpoint):
        query = (spark.readStream.schema("k string, t long").option("maxFilesPerTrigger", 1)
                 .json(str(source)).withColumn("ts", F.timestamp_micros("t"))
                 .withWatermark("ts", "1 second")
                 .groupBy("k", swa.sliding_window("ts", "2 seconds")).agg(F.count("*").alias("n"))
                 .writeStream.format("noop").outputMode("append")
                 .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())
        query.awaitTermination()
        return len(query.recentProgress)

    def logged(level):
        return [line for line in capture.lines() if line.startswith(level)]

    previous = spark.conf.get("spark.sql.streaming.stateStore.providerClass")
    try:
        spark.conf.unset("spark.sql.streaming.stateStore.providerClass")
        for i in range(3):
            add_file(i)
        assert run(tmp_path / "default") >= 3
        assert len(logged("INFO")) == 1 and "state format version 2" in logged("INFO")[0]
        assert len(logged("WARN")) == 1, capture.lines()
        warning = logged("WARN")[0]
        assert "scans every group of its state in every micro-batch" in warning
        assert f"spark.sql.streaming.stateStore.providerClass={ROCKSDB}" in warning

        add_file(3)  # a new run of the same query: logged again, once
        assert run(tmp_path / "default") >= 1
        assert (len(logged("INFO")), len(logged("WARN"))) == (2, 2)

        spark.conf.set("spark.sql.streaming.stateStore.providerClass", ROCKSDB)
        assert run(tmp_path / "rocksdb") >= 3
        if has_time_index(spark, ROCKSDB):
            assert (len(logged("INFO")), len(logged("WARN"))) == (3, 2)
        else:  # Spark 3.5: RocksDB has no column families, so no time index either
            assert (len(logged("INFO")), len(logged("WARN"))) == (3, 3)
            assert "RocksDB keeps a time index on Spark 4.0 and later" in logged("WARN")[-1]
            assert "providerClass=" not in logged("WARN")[-1]
        assert ROCKSDB in logged("INFO")[-1]
    finally:
        capture.close()
        spark.conf.set("spark.sql.streaming.stateStore.providerClass", previous)
