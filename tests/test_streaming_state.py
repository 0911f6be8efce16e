"""State stays bounded on an endless stream: only what open windows need is kept."""
from __future__ import annotations

import time

import pytest
from pyspark.sql import functions as F

import sliding_window_agg as swa

ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"


@pytest.mark.parametrize("provider", [ROCKSDB, None])
def test_state_rows_stop_growing_at_a_steady_rate(spark, tmp_path, provider):
    previous = spark.conf.get("spark.sql.streaming.stateStore.providerClass")
    if provider:
        spark.conf.set("spark.sql.streaming.stateStore.providerClass", provider)
    try:
        stream = (spark.readStream.format("rate").option("rowsPerSecond", 200).load()
                  .withWatermark("timestamp", "1 second")
                  .groupBy((F.col("value") % 5).alias("k"), swa.sliding_window("timestamp", "2 seconds"))
                  .agg(F.count("*").alias("n")))
        query = (stream.writeStream.format("noop").outputMode("append")
                 .option("checkpointLocation", str(tmp_path / "ck"))
                 .trigger(processingTime="500 milliseconds").start())
        try:
            deadline = time.time() + 120
            while len([p for p in query.recentProgress if p.numInputRows > 0]) < 18:
                assert time.time() < deadline, "the stream made too little progress"
                assert query.exception() is None, query.exception()
                time.sleep(0.5)
        finally:
            query.stop()
        progress = [p for p in query.recentProgress if p.stateOperators]
        assert all(p.stateOperators[0].operatorName == "slidingWindowAggregate" for p in progress)
        state = [p.stateOperators[0].numRowsTotal for p in progress if p.numInputRows > 0]
        third = len(state) // 3
        middle, last = state[third:2 * third], state[2 * third:]
        assert max(last) > 0
        # Input keeps arriving at the same rate: state stays at the level of the open windows.
        assert max(last) <= 1.5 * max(middle), state
        # Windows close and state is evicted all along, in data and no-data batches alike
        # (the rate source stamps a second of rows at once, so the watermark often moves
        # between batches and a no-data batch does the emitting).
        late = [p.stateOperators[0] for p in progress[len(progress) // 2:]]
        assert sum(o.customMetrics["numWindowsEmitted"] for o in late) > 0
        assert sum(o.numRowsRemoved for o in late) > 0
    finally:
        spark.conf.set("spark.sql.streaming.stateStore.providerClass", previous)
