"""Kafka Streams' `SlidingWindows` and `sliding_window` on the same Kafka topic, side by side:
the comparison of docs/kafka-migration.md, printed as the page shows it.

    PYTHONPATH=python python3 tests/support/kafka_side_by_side.py

Starts a Kafka broker (kafka_broker.py), writes RECORDS to a topic of one partition and runs
Kafka Streams' sliding windows on it, emitted on window close (kafka_streams_app.py), then the
extension on the same topic (kafka_streams_spark_child.py), both with a time difference (size)
of 10 s and a grace period (watermark delay) of 2 s; prints the windows of both for one key over
a few seconds, the totals, and the late records. tests/test_kafka_streams.py runs it and checks
both sides against the definition."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from typing import List

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


def records() -> List[dict]:
    """About 360 records of keys A, B and C in arrival order, ~200 ms apart: out of order by up
    to 1.5 s (within the grace period), every 50th one from the 150th on 40 s behind (late by
    more than the grace period plus the size: every window it belongs to has closed), one record
    of key A 10 001 ms after another (KIP-450's right window, 1 ms after a record, holds it: the
    extension's, 1 µs after, does not), then one END_KEY record past every window's close."""
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
    out.append({"key": END_KEY, "ts": max(r["ts"] for r in out) + SIZE_MS + GRACE_MS + 10_000, "v": 0, "late": False})
    return [dict(r, id=i, ts=BASE_MS + r["ts"]) for i, r in enumerate(out)]


def run(folder: str, broker: KafkaBroker) -> dict:
    """Both sides on one topic of `broker`: the records, each side's windows and losses."""
    rows = records()
    path = os.path.join(folder, "records.json")
    with open(path, "w") as f:
        f.writelines(json.dumps({k: r[k] for k in ("key", "ts", "id", "v")}) + "\n" for r in rows)
    kafka, kafka_dropped = kafka_streams_app.sliding_windows(broker.bootstrap, TOPIC, path, SIZE_MS, GRACE_MS,
                                                             os.path.join(folder, "kafka-streams"))
    import pyspark
    jars = maven_classpath.spark_kafka_connector(pyspark.__version__,
                                                 os.path.join(os.path.dirname(pyspark.__file__), "jars"))
    result = subprocess.run([sys.executable, os.path.join(SUPPORT, "kafka_streams_spark_child.py"), broker.bootstrap,
                             TOPIC, str(SIZE_MS), str(GRACE_MS), os.path.join(folder, "spark"), ",".join(jars)],
                            capture_output=True, text=True, timeout=600, cwd=ROOT)
    if result.returncode != 0:
        raise RuntimeError(f"the Spark query failed:\n{result.stderr[-4000:]}")
    spark = json.loads(result.stdout.strip().splitlines()[-1])
    return {"records": rows, "kafka": kafka, "kafka_dropped": kafka_dropped, **{f"spark_{k}": v for k, v in spark.items()}}


def ms(micros: int) -> str:
    """A bound of the extension's in ms after BASE_MS."""
    return f"{(micros - BASE_MS * 1000) / 1000:.3f}"


def ceil_ms(micros: int) -> int:
    return -(-micros // 1000)


def table(out: dict) -> List[str]:
    """What the page shows: one key's windows over a few seconds from both, the totals, the
    late records."""
    kafka = {(w["key"], w["start"], w["end"]): w for w in out["kafka"]}
    spark = {(w["key"], w["start"], w["end"]): w for w in out["spark_windows"]}
    # Kafka's bounds are ms: the extension's right windows start 1 µs after a record, in its ms.
    paired = {}
    for (k, s, e), w in spark.items():
        same = kafka.get((k, ceil_ms(s), ceil_ms(e)))
        if same is not None and (same["n"], same["sum"], same["ids"]) == (w["n"], w["sum"], w["ids"]):
            paired[(k, s, e)] = same
    lines = [f"size {SIZE_MS} ms, grace {GRACE_MS} ms, {len(out['records'])} records on one partition; "
             f"times in ms after 2024-01-01T00:00:00Z",
             f"key {SHOWN_KEY}, the windows that start from {SHOWN_FROM} to {SHOWN_TO} ms:",
             f"  {'Kafka Streams':<28} | sliding_window"]
    shown = sorted([(s / 1000 - BASE_MS, "spark", w) for (k, s, e), w in spark.items() if k == SHOWN_KEY]
                   + [(w["start"] - BASE_MS, "kafka", w) for w in kafka.values()
                      if w["key"] == SHOWN_KEY and not any(p is w for p in paired.values())],
                   key=lambda x: x[0])
    for start, side, w in shown:
        if not SHOWN_FROM <= start <= SHOWN_TO:
            continue
        k_side = paired.get((w["key"], w["start"], w["end"])) if side == "spark" else w
        left = (f"[{k_side['start'] - BASE_MS}, {k_side['end'] - BASE_MS}] n={k_side['n']} sum={k_side['sum']}"
                if k_side else "-")
        right = f"[{ms(w['start'])}, {ms(w['end'])}] n={w['n']} sum={w['sum']}" if side == "spark" else "-"
        lines.append(f"  {left:<28} | {right}")
    only_spark = sorted(set(spark) - set(paired))
    only_kafka = [w for w in kafka.values() if not any(p is w for p in paired.values())]
    lines.append(f"windows: Kafka Streams {len(kafka)}, sliding_window {len(spark)}, "
                 f"the same {len(paired)} (bounds to the ms, count, sum, records)")
    lines.append(f"  only in Kafka Streams: {len(only_kafka)}; only in sliding_window: {len(only_spark)}")
    lines += [f"  {w['key']} [{w['start'] - BASE_MS}, {w['end'] - BASE_MS}] n={w['n']} | -" for w in only_kafka]
    lines += [f"  - | {k} [{ms(s)}, {ms(e)}] n={spark[(k, s, e)]['n']}" for k, s, e in only_spark]
    late = [r for r in out["records"] if r["late"]]
    lines.append(f"late records (more than size + grace behind): {len(late)}, at "
                 + ", ".join(f"{r['ts'] - BASE_MS}" for r in late))
    lines.append(f"  Kafka Streams: dropped-records-total {out['kafka_dropped']}")
    same = "the same records" if out["spark_late_rows"] == [r["id"] for r in late] else f"ids {out['spark_late_rows']}"
    lines.append(f"  sliding_window: numRowsDroppedByWatermark {out['spark_dropped']}; the late-rows table holds "
                 f"{len(out['spark_late_rows'])} rows, {same}")
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
