"""Streams from Kafka, as users run them: a Kafka broker of the test's own (KRaft, from the
machine's Maven repository: tests/support/kafka_broker.py) and Spark's Kafka connector
(buildtools/maven_classpath.py), a sliding_window aggregation from one topic to another in a
process of its own (tests/support/kafka_child.py)."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pyspark
import pytest

from kafka_broker import ROOT, KafkaBroker
from buildtools import maven_classpath

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "support", "kafka_child.py")
SIZE = timedelta(seconds=10)


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    b = KafkaBroker(str(tmp_path_factory.mktemp("kafka"))).start()
    yield b
    b.stop()


def connector_jars() -> str:
    minor = ".".join(pyspark.__version__.split(".")[:2])
    jars = maven_classpath.classpath(f"kafka-connector-{minor}", [maven_classpath.KAFKA_CONNECTOR[minor]])
    return ",".join(maven_classpath.beside(jars, os.path.join(os.path.dirname(pyspark.__file__), "jars")))


def row_sets(rows):
    """The definition's windows, by key: every distinct non-empty set of the key's rows that a
    window [s, s + SIZE] (both bounds inclusive) holds as s moves; the set changes only where a
    row enters (s = t - SIZE) or leaves (just after s = t)."""
    found = {}
    for k in {r["k"] for r in rows}:
        mine = [r for r in rows if r["k"] == k]
        starts = {r["ts"] - SIZE for r in mine} | {r["ts"] + timedelta(microseconds=1) for r in mine}
        found[k] = {frozenset(r["id"] for r in mine if s <= r["ts"] <= s + SIZE) for s in starts} - {frozenset()}
    return found


@pytest.mark.slow
def test_sliding_windows_from_a_topic_to_a_topic(broker, tmp_path):
    """Every window the stream writes to the output topic is one of the definition's, with its
    rows, and every one of them is written once; the batch query over the same rows agrees."""
    rng = random.Random(47)
    base = datetime(2024, 1, 1, tzinfo=timezone.utc)
    rows, t = [], base
    for i in range(600):
        t += timedelta(milliseconds=rng.randrange(0, 700))
        # Out of order within the watermark's delay (5 s): never late.
        ts = t - timedelta(milliseconds=rng.randrange(0, 3000))
        rows.append({"k": f"card-{rng.randrange(6)}", "ts": max(ts, base), "v": rng.randrange(100), "id": i})
    with open(tmp_path / "rows.json", "w") as f:
        for r in rows:
            f.write(json.dumps(dict(r, ts=r["ts"].isoformat())) + "\n")
    result = subprocess.run([sys.executable, CHILD, broker.bootstrap, str(tmp_path), connector_jars()],
                            capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-4000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert len(out["batches"]) >= 3, out["batches"]

    by_id = {r["id"]: r for r in rows}
    emitted = {}
    for w in out["stream"]:
        start, end = (datetime.fromisoformat(w[b]).replace(tzinfo=timezone.utc) for b in ("start", "end"))
        assert end - start == SIZE, w
        held = [r for r in rows if r["k"] == w["k"] and start <= r["ts"] <= end]
        assert sorted(r["id"] for r in held) == w["ids"], w
        assert (w["n"], w["total"]) == (len(held), sum(by_id[i]["v"] for i in w["ids"])), w
        emitted.setdefault(w["k"], []).append(frozenset(w["ids"]))
    assert all(len(sets) == len(set(sets)) for sets in emitted.values()), "a window written twice"
    assert {k: set(sets) for k, sets in emitted.items()} == row_sets(rows)
    key = lambda w: (w["k"], w["start"])  # noqa: E731
    assert sorted(out["stream"], key=key) == sorted(out["batch"], key=key)
