"""Kafka Streams' own `SlidingWindows` (kafka-streams from the machine's Maven repository, in a
JVM of its own) and `sliding_window` on the same Kafka topic (tests/support/kafka_side_by_side.py,
the comparison docs/kafka-migration.md shows): each side gives its definition's windows, they
differ exactly where KIP-450's unit (1 ms) and the extension's (1 µs) make them differ, and both
drop the same late records."""
from __future__ import annotations

import pytest

from documented_output import documented_output, normalize
from kafka_broker import KafkaBroker
import kafka_side_by_side as side
from reference import sliding_windows

pytestmark = pytest.mark.slow


def by_window(windows) -> dict:
    return {(w["key"], w["start"], w["end"]): (w["n"], w["sum"], w["ids"]) for w in windows}


def definition(rows, unit: int) -> dict:
    """The contract's windows of `rows` (docs/contract.md#sliding-windows) with times counted in
    `unit`s of a µs: 1000 is KIP-450's ms, 1 the extension's µs; bounds in that unit."""
    found = sliding_windows(rows, side.SIZE_MS * 1000 // unit, key=lambda r: r["key"],
                            time=lambda r: r["ts"] * 1000 // unit)
    return {w: (len(held), sum(r["v"] for r in held), sorted(r["id"] for r in held)) for w, held in found.items()}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kafka-streams")
    broker = KafkaBroker(str(folder / "broker")).start()
    try:
        yield side.run(str(folder), broker)
    finally:
        broker.stop()


def test_the_records_are_in_order_within_the_grace_period_or_late_beyond_it(run):
    """What the comparison's records are said to be: a record is either at most 1.5 s behind the
    latest time before it (within the 2 s grace period) or later than every window it belongs
    to closes in Kafka Streams (its right window too: t + 1 + size at or before stream time minus
    grace) and in the extension (Spark's watermark lags; this is stricter than it needs)."""
    latest = None
    for r in run["records"]:
        if latest is not None:
            if r["late"]:
                assert r["ts"] + 1 + side.SIZE_MS <= latest - side.GRACE_MS - 20_000, r
            else:
                assert r["ts"] > latest - 1500, r
        latest = r["ts"] if latest is None else max(latest, r["ts"])
    assert sum(r["late"] for r in run["records"]) == 5


def test_each_side_gives_its_definitions_windows(run):
    """Every window of the keys the last record closes, once, with its records, count and sum:
    Kafka Streams' are the definition in ms, the extension's the definition in µs; the late
    records belong to none (both drop them whole); the last record's key has no window closed."""
    kept = [r for r in run["records"] if not r["late"] and r["key"] != side.END_KEY]
    assert len(run["kafka"]) == len(by_window(run["kafka"]))
    assert len(run["spark_windows"]) == len(by_window(run["spark_windows"]))
    assert by_window(run["kafka"]) == definition(kept, 1000)
    assert by_window(run["spark_windows"]) == definition(kept, 1)
    assert run["spark_batches"] >= 5


def test_the_windows_differ_only_by_the_unit(run):
    """Each Kafka window is an extension window with the same records, its bounds the
    extension's rounded up to the ms (a right window starts 1 ms after its record there, 1 µs
    here). The extension has one window more for each record at t with a record of its key at
    t + size + 1 ms and one in (t, t + size]: its right window [t + 1 µs, t + 1 µs + size] holds the records of
    (t, t + size], and no window of whole ms does (one starting after t ends at t + size + 1 ms
    or later, and holds that record too). The records include one such pair; the others are
    the random ones'. No window is Kafka's only."""
    kafka, spark = by_window(run["kafka"]), by_window(run["spark_windows"])
    rounded = {(k, -(-s // 1000), -(-e // 1000)): held for (k, s, e), held in spark.items()}
    kept = [r for r in run["records"] if not r["late"]]
    extra = {(r["key"], r["ts"] * 1000 + 1, (r["ts"] + side.SIZE_MS) * 1000 + 1) for r in kept
             if any(o["key"] == r["key"] and o["ts"] == r["ts"] + side.SIZE_MS + 1 for o in kept)
             and any(o["key"] == r["key"] and r["ts"] < o["ts"] <= r["ts"] + side.SIZE_MS for o in kept)}
    assert extra and extra <= set(spark), extra
    assert {(k, -(-s // 1000), -(-e // 1000)): held for (k, s, e), held in spark.items()
            if (k, s, e) not in extra} == kafka
    # Rounded up, each of them has a Kafka window's bounds: the left window of the later record.
    assert len(rounded) == len(spark) - len(extra)
    kafka_sets = {(k, tuple(held[2])) for (k, _, _), held in kafka.items()}
    assert not [w for w in extra if (w[0], tuple(spark[w][2])) in kafka_sets]


def test_both_drop_the_late_records(run):
    """The records late beyond the grace period: Kafka Streams counts each once in its
    dropped-records metric; the extension drops them by its watermark, counts them in
    numRowsDroppedByWatermark and writes them to the late-rows table."""
    late = [r["id"] for r in run["records"] if r["late"]]
    assert run["kafka_dropped"] == len(late)
    assert run["spark_dropped"] == len(late)
    assert run["spark_late_rows"] == late


def test_the_migration_page_shows_this_run(run):
    expected = normalize(documented_output("docs/kafka-migration.md", "tests/support/kafka_side_by_side.py"))
    assert side.table(run) == expected
