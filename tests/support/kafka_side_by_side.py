"""Kafka Streams' `SlidingWindows` and `sliding_window` on the same Kafka topic, side by side:
the comparison of docs/kafka-migration.md, printed as the page shows it.

    PYTHONPATH=python python3 tests/support/kafka_side_by_side.py

Starts a Kafka broker (kafka_broker.py), writes RECORDS to a topic of one partition and runs
Kafka Streams' sliding windows on it, emitted on window close (kafka_streams_app.py), then the
extension on the same topic (kafka_streams_spark_child.py), both with a time difference (size)
of 10 s and a grace period (watermark delay) of 2 s; prints the windows of both for one key over
a few seconds, those that hold the record late for part of its windows in Kafka Streams, the
totals, and the late records. tests/test_kafka_streams.py runs it and checks
both sides against the definition."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from typing import List

import pyspark

SUPPORT = os.path.dirname(os.path.abspath(__file__))
if SUPPORT not in sys.path:
    sys.path.insert(0, SUPPORT)

from kafka_broker import ROOT, KafkaBroker  # noqa: E402
import kafka_streams_app  # noqa: E402
from buildtools import maven_classpath  # noqa: E402

SIZE_MS, GRACE_MS = 10_000, 2_000
TOPIC = "records"
BASE_MS = 1_704_067_200_000  # 2024-01-01T00:00:00Z: the table shows ms after it
END_KEY = "end"  # the last record's key: its time closes every other key's windows
SHOWN_KEY, SHOWN_FROM, SHOWN_TO = "A", 12_000, 14_000  # the windows printed in full (start in ms)
BATCH = 30  # records per micro-batch of the extension's query (maxOffsetsPerTrigger)
PARTLY_AT = 7 * BATCH  # where the record late for part of its windows in Kafka Streams comes


def records() -> List[dict]:
    """About 360 records of keys A, B and C in arrival order, ~200 ms apart: out of order by up
    to 1.5 s (within the grace period), every 50th one from the 150th on 40 s behind (late by
    more than the grace period plus the size: every window it belongs to has closed), one record
    of key A 10 001 ms after another (KIP-450's right window, 1 ms after a record, holds it: the
    extension's, 1 µs after, does not), one record of C at PARTLY_AT, the first of a micro-batch,
    late by less than the grace period plus the size for Kafka Streams (its left window has
    closed, its right window has not) and at or below the watermark of the micro-batch before
    for the extension, then one END_KEY record past every window's close."""
    rng = random.Random(67)
    out, t = [], 0
    for i in range(360):
        t += rng.randrange(0, 400)
        late = i >= 150 and i % 50 == 0
        ts = t - 40_000 if late else t - rng.randrange(0, 1500)
        out.append({"key": rng.choice("ABC"), "ts": ts, "v": rng.randrange(100), "late": late})
    # A record of A exactly size + 1 ms after the first A record from 12 s on, where it arrives.
    first = min((r for r in out if r["key"] == "A" and r["ts"] >= 12_000 and not r["late"]), key=lambda r: r["ts"])
    at = next(i for i, r in enumerate(out) if r["ts"] > first["ts"] + SIZE_MS + 1 and not r["late"])
    out.insert(at, {"key": "A", "ts": first["ts"] + SIZE_MS + 1, "v": 1, "late": False})
    before_that = max(r["ts"] for r in out[:PARTLY_AT - BATCH])  # the latest time before the micro-batch before
    out.insert(PARTLY_AT, {"key": "C", "ts": before_that - GRACE_MS - 500, "v": 7, "late": True, "partly": True})
    out.append({"key": END_KEY, "ts": max(r["ts"] for r in out) + SIZE_MS + GRACE_MS + 10_000, "v": 0, "late": False})
    return [{"partly": False, **r, "id": i, "ts": BASE_MS + r["ts"]} for i, r in enumerate(out)]


def run(folder: str, broker: KafkaBroker) -> dict:
    """Both sides on one topic of `broker`: the records, each side's windows and losses."""
    rows = records()
    path = os.path.join(folder, "records.json")
    with open(path, "w") as f:
        f.writelines(json.dumps({k: r[k] for k in ("key", "ts", "id", "v")}) + "\n" for r in rows)
    kafka, kafka_dropped = kafka_streams_app.sliding_windows(broker.bootstrap, TOPIC, path, SIZE_MS, GRACE_MS,
                                                             os.path.join(folder, "kafka-streams"))
    jars = maven_classpath.kafka_connector(".".join(pyspark.__version__.split(".")[:2]),
                                           os.path.join(os.path.dirname(pyspark.__file__), "jars"))
    result = subprocess.run([sys.executable, os.path.join(SUPPORT, "kafka_streams_spark_child.py"), broker.bootstrap,
                             TOPIC, str(SIZE_MS), str(GRACE_MS), str(BATCH), os.path.join(folder, "spark"), jars],
                            capture_output=True, text=True, timeout=600, cwd=ROOT)
    if result.returncode != 0:
        raise RuntimeError(f"the Spark query failed:\n{result.stderr[-4000:]}")
    spark = json.loads(result.stdout.strip().splitlines()[-1])
    return {"records": rows, "kafka": kafka, "kafka_dropped": kafka_dropped, **{f"spark_{k}": v for k, v in spark.items()}}


def ms(micros: int) -> str:
    """A bound of the extension's in ms after BASE_MS."""
    return f"{(micros - BASE_MS * 1000) / 1000:.3f}"


def closed_at_arrival(records: List[dict], record: dict) -> int:
    """Kafka Streams' close time when `record` arrives (its windows that end at or before it have
    closed): the stream time (the largest record time of the partition so far) minus the grace."""
    return max(r["ts"] for r in records[:record["id"] + 1]) - GRACE_MS


def pairs(out: dict) -> List[tuple]:
    """Kafka's windows and the extension's with the same bounds, a right window's start 1 ms
    after its record there and 1 µs after it here: (Kafka's or None, the extension's or None)."""
    spark = {(w["key"], w["start"], w["end"]): w for w in out["spark_windows"]}
    found, paired = [], set()
    for w in out["kafka"]:
        left, right = ((w["key"], w["start"] * 1000 + d, w["end"] * 1000 + d) for d in (0, -999))
        mine = left if left in spark else right if right in spark else None
        found.append((w, spark.get(mine)))
        paired.add(mine)
    return found + [(None, w) for b, w in spark.items() if b not in paired]


def _kafka(w: dict, n: bool = True) -> str:
    return f"{w['key']} [{w['start'] - BASE_MS}, {w['end'] - BASE_MS}] n={w['n']}" + (f" sum={w['sum']}" if n else "")


def _spark(w: dict, n: bool = True) -> str:
    return f"{w['key']} [{ms(w['start'])}, {ms(w['end'])}] n={w['n']}" + (f" sum={w['sum']}" if n else "")


def table(out: dict) -> List[str]:
    """What the page shows: one key's windows over a few seconds from both, the windows of the
    record late for part of its windows in Kafka Streams, the totals, the late records."""
    both = pairs(out)
    same = [(k, s) for k, s in both if k and s and (k["n"], k["sum"], k["ids"]) == (s["n"], s["sum"], s["ids"])]
    other = [(k, s) for k, s in both if k and s and (k, s) not in same]
    lines = [f"size {SIZE_MS} ms, grace {GRACE_MS} ms, {len(out['records'])} records on one partition; "
             f"times in ms after 2024-01-01T00:00:00Z",
             f"key {SHOWN_KEY}, the windows that start from {SHOWN_FROM} to {SHOWN_TO} ms:",
             f"  {'Kafka Streams':<30} | sliding_window"]

    def row(k, s):
        return f"  {_kafka(k) if k else '-':<30} | {_spark(s) if s else '-'}"

    def start(k, s):
        return (k["start"] * 1000 if k else s["start"]) - BASE_MS * 1000

    shown = [(k, s) for k, s in both if (k or s)["key"] == SHOWN_KEY and SHOWN_FROM * 1000 <= start(k, s) <= SHOWN_TO * 1000]
    lines += [row(k, s) for k, s in sorted(shown, key=lambda p: start(*p))]
    partly = next(r for r in out["records"] if r["partly"])
    watermark = dict(out["spark_late_rows"])[partly["id"]]
    lines.append(f"the record of {partly['key']} at {partly['ts'] - BASE_MS} ms, late for Kafka Streams' windows that end "
                 f"at or before {closed_at_arrival(out['records'], partly) - BASE_MS} ms")
    lines.append(f"  and for sliding_window's watermark, {watermark - BASE_MS} ms; the windows of Kafka Streams that hold it:")
    lines += [row(k, s) for k, s in sorted(both, key=lambda p: start(*p)) if k and partly["id"] in k["ids"]]
    lines.append(f"windows: Kafka Streams {len(out['kafka'])}, sliding_window {len(out['spark_windows'])}, the same "
                 f"{len(same)} (bounds to the ms, count, sum, records)")
    only = [(k, s) for k, s in both if not (k and s)]
    lines.append(f"  with other records: {len(other)}; only in Kafka Streams: {sum(1 for k, s in only if k)}; "
                 f"only in sliding_window: {sum(1 for k, s in only if s)}")
    lines += [f"  {_kafka(k, False) if k else '-'} | {_spark(s, False) if s else '-'}"
              for k, s in sorted(only, key=lambda p: start(*p))]
    late = [r for r in out["records"] if r["late"] and not r["partly"]]
    lines.append(f"records later than size + grace: {len(late)}, at " + ", ".join(f"{r['ts'] - BASE_MS}" for r in late))
    lines.append(f"  Kafka Streams: dropped-records-total {out['kafka_dropped']}")
    ids = [i for i, _ in out["spark_late_rows"]]
    held = (f"these and the record of {partly['key']}" if ids == [r["id"] for r in out["records"] if r["late"]]
            else f"ids {ids}")
    lines.append(f"  sliding_window: numRowsDroppedByWatermark {out['spark_dropped']}; the late-rows table holds "
                 f"{len(ids)} rows: {held}")
    return lines


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        broker = KafkaBroker(os.path.join(folder, "broker")).start()
        try:
            out = run(folder, broker)
        finally:
            broker.stop()
    print("\n".join(table(out)))


if __name__ == "__main__":
    main()
