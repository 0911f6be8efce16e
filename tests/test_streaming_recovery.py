"""A streaming query killed in the middle of a micro-batch and restarted from its checkpoint
emits exactly the windows an uninterrupted run emits: none lost, none twice."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "streaming_child.py")
SEC = 1_000_000


def write_files(folder: str, seed: int = 11, files: int = 6) -> None:
    rng = random.Random(seed)
    os.makedirs(folder)
    base = 1_700_000_000 * SEC
    clock = 0
    for i in range(files):
        path = os.path.join(folder, f"{i:03d}.json")
        with open(path, "w") as f:
            for _ in range(rng.randint(3, 8)):
                t = base + (clock + rng.randint(-3000, 1500)) * 1000  # some rows are late
                f.write(json.dumps({"k": rng.choice("ab"), "t": t, "v": rng.randint(1, 9)}) + "\n")
            clock += rng.randint(1000, 3000)
        os.utime(path, (1_000_000 + i, 1_000_000 + i))  # the file source orders by time
    flush = os.path.join(folder, f"{files:03d}.json")
    with open(flush, "w") as f:
        f.write(json.dumps({"k": "__flush", "t": base + (clock + 60_000) * 1000, "v": 0}) + "\n")
    os.utime(flush, (1_000_000 + files, 1_000_000 + files))


def run_child(function, source, checkpoint, log, pause_in=None):
    args = [sys.executable, CHILD, function, source, checkpoint, log] + ([str(pause_in)] if pause_in is not None else [])
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def windows_by_batch(log: str) -> dict:
    """{batch id: set of windows} keeping the LAST attempt of each batch (foreachBatch re-runs a
    batch that did not commit, as Spark's exactly-once sinks expect)."""
    attempts: dict = {}
    with open(log) as f:
        for line in f:
            r = json.loads(line)
            if r["k"] == "__flush":
                continue
            run, rows = attempts.get(r["batch"], (r["run"], []))
            if run != r["run"]:  # a later attempt of the batch replaces the earlier one
                rows = []
            rows.append((r["k"], r["s"], r["e"], r["n"], r["total"]))
            attempts[r["batch"]] = (r["run"], rows)
    return {batch: rows for batch, (_, rows) in attempts.items()}


def all_windows(by_batch: dict) -> list:
    return sorted(w for rows in by_batch.values() for w in rows)


@pytest.mark.parametrize("function", ["sliding_window", "batch_window"])
def test_kill_in_the_middle_of_a_batch_then_restart(tmp_path, function):
    source = str(tmp_path / "in")
    write_files(source)

    reference_log = str(tmp_path / "uninterrupted.jsonl")
    child = run_child(function, source, str(tmp_path / "ck-ref"), reference_log)
    assert child.wait(timeout=300) == 0, child.stderr.read()
    expected = windows_by_batch(reference_log)
    assert sum(len(v) for v in expected.values()) > 5

    # Pick a batch that emits windows, write its rows, then die inside its sink.
    victim = sorted(b for b, rows in expected.items() if rows)[1]
    log = str(tmp_path / "crashed.jsonl")
    child = run_child(function, source, str(tmp_path / "ck"), log, pause_in=victim)
    deadline = time.time() + 300
    while not os.path.exists(log + ".paused"):
        assert child.poll() is None, child.stderr.read()
        assert time.time() < deadline
        time.sleep(0.2)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait(timeout=60)
    before_restart = windows_by_batch(log)
    assert victim in before_restart and max(before_restart) == victim

    restarted = run_child(function, source, str(tmp_path / "ck"), log)
    assert restarted.wait(timeout=300) == 0, restarted.stderr.read()
    got = windows_by_batch(log)
    # The killed batch ran again, with the same windows; every window is in exactly one batch.
    with open(log) as f:
        runs_of_victim = {json.loads(line)["run"] for line in f if json.loads(line)["batch"] == victim}
    assert len(runs_of_victim) == 2
    assert sorted(got[victim]) == sorted(before_restart[victim])
    assert all_windows(got) == all_windows(expected)
    assert len(set(all_windows(got))) == len(all_windows(got))
    assert got == expected  # same windows in the same micro-batches
