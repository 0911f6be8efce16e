"""Streams from Kafka, as users run them: a Kafka broker of the test's own (KRaft, from the
machine's Maven repository: tests/support/kafka_broker.py) and Spark's Kafka connector
(buildtools/maven_classpath.py); each window kind's query from one topic to a topic of its own, and
sliding windows upserted into a Delta table, in processes of their own (tests/support/kafka_child.py)
that are stopped, killed (-9) and restarted on their checkpoints."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pyspark
import pytest

import sliding_window_agg as swa

from kafka_broker import ROOT, KafkaBroker
from buildtools import maven_classpath

pytestmark = pytest.mark.xdist_group("kafka")  # one broker for the module

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "support", "kafka_child.py")
SIZE = timedelta(seconds=10)
KINDS = ["sliding", "batch", "trailing"]
MINOR = ".".join(pyspark.__version__.split(".")[:2])
SPARK_JARS = os.path.join(os.path.dirname(pyspark.__file__), "jars")
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    b = KafkaBroker(str(tmp_path_factory.mktemp("kafka"))).start()
    yield b
    b.stop()


def connector_jars() -> str:
    return maven_classpath.kafka_connector(MINOR, SPARK_JARS)


def delta_jars() -> str:
    return maven_classpath.spark_jars(f"delta-{MINOR}", [maven_classpath.DELTA[MINOR]], SPARK_JARS)


def event_rows(count: int, seed: int):
    """Card events, out of order by up to 3 s: within the watermark's delay (a minute) even where
    a micro-batch reads one partition's records seconds further than the other's."""
    rng = random.Random(seed)
    base = datetime(2024, 1, 1, tzinfo=timezone.utc)
    rows, t = [], base
    for i in range(count):
        t += timedelta(milliseconds=rng.randrange(0, 700))
        ts = t - timedelta(milliseconds=rng.randrange(0, 3000))
        rows.append({"k": f"card-{rng.randrange(6)}", "ts": max(ts, base), "v": rng.randrange(100), "id": i})
    return rows


def write_rows(path, rows) -> str:
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(dict(r, ts=r["ts"].isoformat())) + "\n")
    return str(path)


def run_child(broker, work, jars, *options, killed=False):
    """One run of kafka_child.py, in a process group of its own (its kill -9 takes the JVM too)."""
    result = subprocess.run([sys.executable, CHILD, broker.bootstrap, str(work), jars, *options],
                            capture_output=True, text=True, timeout=600, cwd=ROOT, start_new_session=True,
                            env={**os.environ, "TZ": "UTC"})
    if killed:
        assert result.returncode == -9, (result.returncode, result.stderr[-4000:])
        return None
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1]) if "--report" in options else None


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


def row_sets(rows):
    """The definition's sliding windows, by key: every distinct non-empty set of the key's rows
    that a window [s, s + SIZE] (both bounds inclusive) holds as s moves; the set changes only
    where a row enters (s = t - SIZE) or leaves (just after s = t)."""
    found = {}
    for k in {r["k"] for r in rows}:
        mine = [r for r in rows if r["k"] == k]
        starts = {r["ts"] - SIZE for r in mine} | {r["ts"] + timedelta(microseconds=1) for r in mine}
        found[k] = {frozenset(r["id"] for r in mine if s <= r["ts"] <= s + SIZE) for s in starts} - {frozenset()}
    return found


def check_sliding(rows, emitted):
    """Every window is one of the definition's, with its rows, and every one of them is there."""
    by_id = {r["id"]: r for r in rows}
    sets = {}
    for w in emitted:
        start, end = utc(w["start"]), utc(w["end"])
        assert end - start == SIZE, w
        held = [r for r in rows if r["k"] == w["k"] and start <= r["ts"] <= end]
        assert sorted(r["id"] for r in held) == w["ids"], w
        assert (w["n"], w["total"]) == (len(held), sum(by_id[i]["v"] for i in w["ids"])), w
        sets.setdefault(w["k"], set()).add(frozenset(w["ids"]))
    assert sets == row_sets(rows)


def batch_windows(rows, arrival):
    """The definition's batch windows: a key's rows applied in arrival order (their offsets in
    the key's partition), each into the tumbling window of the key's stream time (its largest
    time so far; no row is late, so the watermark never lifts it)."""
    size = SIZE // timedelta(microseconds=1)
    found = {}
    for k in {r["k"] for r in rows}:
        mine = sorted((r for r in rows if r["k"] == k), key=lambda r: arrival[str(r["id"])])
        assert len({arrival[str(r["id"])][0] for r in mine}) == 1, "a key's rows in one partition"
        stream_time = None
        for r in mine:
            stream_time = r["ts"] if stream_time is None else max(stream_time, r["ts"])
            start = EPOCH + timedelta(microseconds=(stream_time - EPOCH) // timedelta(microseconds=1) // size * size)
            found.setdefault((k, start), []).append(r)
    return sorted(({"k": k, "start": s.replace(tzinfo=None).isoformat(), "end": (s + SIZE).replace(tzinfo=None).isoformat(),
                    "n": len(held), "total": sum(r["v"] for r in held), "ids": sorted(r["id"] for r in held)}
                   for (k, s), held in found.items()), key=window_key)


def trailing_values(rows):
    """The definition's trailing windows: each row's count and sum over its key's rows in [t - SIZE, t]."""
    return sorted(({"id": r["id"], "k": r["k"], "ts": r["ts"].replace(tzinfo=None).isoformat(),
                    "n": len(held), "total": sum(h["v"] for h in held)}
                   for r in rows for held in [[h for h in rows if h["k"] == r["k"] and r["ts"] - SIZE <= h["ts"] <= r["ts"]]]),
                  key=window_key)


def window_key(w):
    """What identifies an output row: a trailing window's row (its id), another window's group key
    and bounds."""
    return (w["id"],) if "id" in w else (w["k"], w["start"], w["end"])


def distinct(emitted):
    """The output rows by key, each key's copies equal (an at-least-once sink's repeats)."""
    found = {}
    for w in emitted:
        assert found.setdefault(window_key(w), w) == w, ("two values of one window", found[window_key(w)], w)
    return sorted(found.values(), key=window_key)


def check_kinds(rows, out, exactly_once: bool):
    """Each kind's output, deduplicated by its key unless each row must be there once, against
    the definition and against the batch query over the topic's rows."""
    for kind in KINDS:
        assert out[kind]["dropped"] == 0, f"{kind}: late rows (the definitions hold for rows that are not)"
        emitted = out[kind]["stream"]
        unique = distinct(emitted)
        if exactly_once:
            assert len(unique) == len(emitted), f"{kind}: a window written twice"
        if kind == "sliding":
            check_sliding(rows, unique)
        elif kind == "batch":
            assert unique == batch_windows(rows, out["arrival"])
        else:
            assert unique == trailing_values(rows)
        assert unique == sorted(out[kind]["batch"], key=window_key), kind


def two_runs_of_rows(tmp_path):
    rows = event_rows(600, 47)
    return rows, write_rows(tmp_path / "rows-0.json", rows[:350]), write_rows(tmp_path / "rows-1.json", rows[350:])


@pytest.mark.slow
def test_every_window_kind_from_a_topic_to_a_topic_across_a_restart(broker, tmp_path):
    """Sliding, batch and trailing windows from one topic, each into its own topic: the queries
    stop with windows open, start again on their checkpoints with more rows, and every window is
    written once, as the definition and the batch query give it."""
    rows, first, second = two_runs_of_rows(tmp_path)
    jars, kinds = connector_jars(), ",".join(KINDS)
    run_child(broker, tmp_path, jars, "--kinds", kinds, "--rows", first)
    out = run_child(broker, tmp_path, jars, "--kinds", kinds, "--rows", second, "--close", "--report")
    assert all(len(out[kind]["batches"]) >= 2 for kind in KINDS), out
    check_kinds(rows, out, exactly_once=True)


@pytest.mark.slow
def test_every_window_kind_after_a_kill_9_of_the_driver(broker, tmp_path):
    """The driver killed (-9) in the middle of a micro-batch, then started again on the same
    checkpoints with more rows: Kafka's sink is at-least-once, so a window of the micro-batch
    that ran again may be in its topic twice; deduplicated by its key (group key and window
    bounds; a trailing window's row id) every window is the definition's, with one value."""
    rows, first, second = two_runs_of_rows(tmp_path)
    jars, kinds = connector_jars(), ",".join(KINDS)
    # Micro-batch 2 of 4 emits windows (the watermark is a minute behind): killed as it writes.
    run_child(broker, tmp_path, jars, "--kinds", kinds, "--per-trigger", "100", "--rows", first, "--kill-at", "2",
              killed=True)
    logged = {log: {int(n) for n in os.listdir(tmp_path / "chk-sliding" / log) if n.isdigit()}
              for log in ("offsets", "commits")}
    assert max(logged["offsets"]) > max(logged["commits"], default=-1), logged  # killed mid micro-batch
    out = run_child(broker, tmp_path, jars, "--kinds", kinds, "--per-trigger", "100", "--rows", second, "--close",
                    "--report")
    check_kinds(rows, out, exactly_once=False)


@pytest.mark.slow
@pytest.mark.every_spark
@pytest.mark.skipif(MINOR not in maven_classpath.DELTA, reason=maven_classpath.DELTA_MISSING.get(MINOR, ""))
def test_sliding_windows_upserted_into_delta_once_after_a_kill_9(broker, tmp_path):
    """Update-mode sliding windows from a topic, upserted with MERGE into a Delta table by group
    key and window bounds. The driver is killed (-9) after a micro-batch's MERGE and before Spark
    logs its commit; the restart runs that micro-batch again and reads more rows: the table holds
    each of the definition's windows once, with its final value, as the batch query gives them.
    Delta's extension and the project's share spark.sql.extensions."""
    jars = f"{connector_jars()},{delta_jars()}"
    rows, first, second = two_runs_of_rows(tmp_path)
    # Two micro-batches a run (a MERGE costs seconds): the second run's first is the killed one.
    delta = ["--sink", "delta", "--per-trigger", "250"]
    run_child(broker, tmp_path, jars, *delta, "--rows", first, "--kill-at", "1", killed=True)
    out = run_child(broker, tmp_path, jars, *delta, "--rows", second, "--report")
    merged = (tmp_path / "merged.txt").read_text().split()
    assert merged[:3] == ["0", "1", "1"], merged  # micro-batch 1 merged, killed, merged again
    assert out["extensions"].split(",")[0] == "io.delta.sql.DeltaSparkSessionExtension", out["extensions"]
    assert swa.EXTENSION_CLASS in out["extensions"].split(","), out["extensions"]
    assert out["sliding"]["dropped"] == 0
    table = out["sliding"]["stream"]
    assert len(distinct(table)) == len(table), "a window in the Delta table twice"
    check_sliding(rows, table)
    assert sorted(table, key=window_key) == sorted(out["sliding"]["batch"], key=window_key)
