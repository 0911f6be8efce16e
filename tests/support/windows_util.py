"""Shared helpers of the test suites: build event DataFrames from micro-second times and read
windows back as micro-seconds (no Python datetime conversion, no time zone involved)."""
from __future__ import annotations

from typing import Iterable, List, Sequence, Tuple

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from reference import batch_windows, sliding_windows

# (case, key, time in microseconds or None, value, unique id)
Event = Tuple[int, object, object, int, int]

EVENT_SCHEMA = "case int, k string, t long, v long, id long"


def reference_windows(function: str, events: Iterable[Event], size: int) -> dict:
    """The windows of `function` ("sliding_window" or "batch_window") over `events`, grouped
    by their key, from the brute-force reference: {(key, start, end): members}."""
    windows = {"sliding_window": sliding_windows, "batch_window": batch_windows}[function]
    return windows(events, size, key=lambda e: e[1], time=lambda e: e[2])


def events_df(spark: SparkSession, events: Iterable[Event], ntz: bool = False) -> DataFrame:
    df = spark.createDataFrame(list(events), EVENT_SCHEMA)
    ts = F.timestamp_micros("t")
    if ntz:
        ts = F.to_timestamp_ntz(ts)  # session time zone is UTC: same micro-seconds
    return df.withColumn("ts", ts)


def window_micros(column: str = "sliding_window") -> List:
    """Columns s and e: the window bounds in micro-seconds since the epoch."""
    def micros(c):
        return F.unix_micros(F.col(c).cast("timestamp"))

    return [micros(f"{column}.start").alias("s"), micros(f"{column}.end").alias("e")]


def rows_by_window(rows: Sequence, key_fields: Sequence[str]) -> dict:
    """{(key..., s, e): row} from collected rows having the key fields, s and e."""
    out = {}
    for r in rows:
        k = tuple(r[f] for f in key_fields) + (r["s"], r["e"])
        assert k not in out, f"window produced twice: {k}"
        out[k] = r
    return out


def find_node(plan, name: str):
    """The first node named `name` in a Java SparkPlan tree (through py4j), or None."""
    if plan.nodeName() == name:
        return plan
    children = plan.children()
    for i in range(children.size()):
        found = find_node(children.apply(i), name)
        if found is not None:
            return found
    return None
