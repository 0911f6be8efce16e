"""Kafka Streams' own `SlidingWindows` (kafka-streams from the machine's Maven repository, in a
JVM of its own) and `sliding_window` on the same Kafka topic (tests/support/kafka_side_by_side.py,
the comparison docs/kafka-migration.md shows): each side gives its definition's windows, and they
differ exactly where KIP-450's unit (1 ms) and the extension's (1 µs) make them differ, and where
Kafka Streams adds a late record to the windows still open that the extension drops whole."""
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


def kept(run) -> list:
    """The records neither side drops whole, the last record's key aside (none of its windows closes)."""
    return [r for r in run["records"] if not r["late"] and r["key"] != side.END_KEY]


def partly(run) -> dict:
    return next(r for r in run["records"] if r["partly"])


def kafka_definition(run) -> dict:
    """Kafka Streams' windows from the definition in ms: a window that had closed when the partly
    late record came (it ends at or before the close time then) as it was without it; the others
    with it (a closed window skips the record; an open one, its right window among them, takes it)."""
    record, close = partly(run), side.closed_at_arrival(run["records"], partly(run))
    without, with_it = definition(kept(run), 1000), definition(kept(run) + [record], 1000)
    return {**{w: held for w, held in without.items() if w[2] <= close},
            **{w: held for w, held in with_it.items() if w[2] > close}}


def test_the_records_are_what_the_comparison_says(run):
    """Each record is at most 1.5 s behind the latest time before it (within the 2 s grace
    period), or later than every window it belongs to closes in Kafka Streams (its right window
    too: t + 1 + size at or before stream time minus grace) and in the extension (Spark's
    watermark lags: a margin of 20 s), but one: late for its left window in Kafka Streams, not
    for its right window."""
    latest = None
    for r in run["records"]:
        if latest is not None:
            if r["partly"]:
                assert r["ts"] <= latest - side.GRACE_MS < r["ts"] + 1 + side.SIZE_MS, r
            elif r["late"]:
                assert r["ts"] + 1 + side.SIZE_MS <= latest - side.GRACE_MS - 20_000, r
            else:
                assert r["ts"] > latest - 1500, r
        latest = r["ts"] if latest is None else max(latest, r["ts"])
    assert sum(r["late"] for r in run["records"]) == 6
    assert partly(run)["id"] % side.BATCH == 0


def test_each_side_gives_its_definitions_windows(run):
    """Every window of the keys the last record closes, once, with its records, count and sum:
    the extension's are the definition in µs over the records it keeps; Kafka Streams' the
    definition in ms, with the partly late record in the windows open when it came."""
    assert len(run["kafka"]) == len(by_window(run["kafka"]))
    assert len(run["spark_windows"]) == len(by_window(run["spark_windows"]))
    assert by_window(run["spark_windows"]) == definition(kept(run), 1)
    assert by_window(run["kafka"]) == kafka_definition(run)
    assert run["spark_batches"] >= 10


def test_the_windows_differ_by_the_unit_and_by_the_partly_late_record(run):
    """Paired by their bounds (a right window starts 1 ms after its record in Kafka Streams, 1 µs
    after it here), the windows are the same but:
    - the extension's right window [t + 1 µs, t + 1 µs + size] of each record at t with a record
      of its key at t + size + 1 ms and one in (t, t + size]: it holds the records of
      (t, t + size], and no window of whole ms does (one starting after t ends at
      t + size + 1 ms or later, and holds that record too). The records include one such pair.
    - the windows open in Kafka Streams when the partly late record came, that hold it: the
      extension's hold the same records but that one; and the record's own right window, which
      only Kafka Streams has."""
    record = partly(run)
    pairs = side.pairs(run)
    rest = [r for r in run["records"] if not r["late"]]
    extra = {(r["key"], r["ts"] * 1000 + 1, (r["ts"] + side.SIZE_MS) * 1000 + 1) for r in rest
             if any(o["key"] == r["key"] and o["ts"] == r["ts"] + side.SIZE_MS + 1 for o in rest)
             and any(o["key"] == r["key"] and r["ts"] < o["ts"] <= r["ts"] + side.SIZE_MS for o in rest)}
    assert extra
    assert {(s["key"], s["start"], s["end"]) for k, s in pairs if not k} == extra
    assert [(k["key"], k["start"], k["end"]) for k, s in pairs if not s] == \
        [(record["key"], record["ts"] + 1, record["ts"] + 1 + side.SIZE_MS)]
    differ = [(k, s) for k, s in pairs if k and s and (k["n"], k["sum"], k["ids"]) != (s["n"], s["sum"], s["ids"])]
    holding = [k for k in run["kafka"] if record["id"] in k["ids"]]
    assert holding and [k for k, _ in differ] == holding
    assert all((s["n"], s["sum"], s["ids"]) == (k["n"] - 1, k["sum"] - record["v"],
                                                 [i for i in k["ids"] if i != record["id"]]) for k, s in differ)


def test_the_late_records(run):
    """Kafka Streams counts a record late beyond the grace period plus the size once in its
    dropped-records metric, and the partly late one once for each closed window it would have
    entered. The extension drops them all whole by its watermark, counts each once in
    numRowsDroppedByWatermark and writes it to the late-rows table, with the watermark it was
    at or before."""
    record, close = partly(run), side.closed_at_arrival(run["records"], partly(run))
    late = [r["id"] for r in run["records"] if r["late"]]
    skipped = [w for w, held in definition(kept(run) + [record], 1000).items()
               if record["id"] in held[2] and w[2] <= close]
    assert skipped
    assert run["kafka_dropped"] == len(late) - 1 + len(skipped)
    assert run["spark_dropped"] == len(late)
    assert [i for i, _ in run["spark_late_rows"]] == late
    assert all(run["records"][i]["ts"] <= watermark for i, watermark in run["spark_late_rows"])


def test_the_migration_page_shows_this_run(run):
    expected = normalize(documented_output("docs/kafka-migration.md", "tests/support/kafka_side_by_side.py"))
    assert side.table(run) == expected
