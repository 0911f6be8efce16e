"""A streaming query killed in the middle of a micro-batch and restarted from its checkpoint
emits exactly the windows an uninterrupted run emits: none lost, none twice (docs/contract.md:
"A query restarted from its checkpoint, after a crash anywhere, produces the same output as one
that ran without stopping").

- Killed in its sink (foreachBatch), once it has written the windows of a micro-batch.
- Killed while the state stores commit a micro-batch: the parent watches the checkpoint and
  kills the child's process group (JVM and Python) once some partition's store has written its
  state of micro-batch N and others have not, before the commit log has N.

Both against the brute-force references of the streaming harnesses (CHECKS of
streaming_harness.py and batch_window_harness.py: what one uninterrupted run emits, micro-batch by
micro-batch)."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest
from pyspark.sql import Row

import batch_window_harness
import streaming_harness
from checkout import SUPPORT
from streaming_harness import committed_batches

pytestmark = pytest.mark.slow  # processes, servers or long runs: `make test` only

CHILD = os.path.join(SUPPORT, "streaming_child.py")
SEC = 1_000_000


def run_child(function, source, checkpoint, log, pause_in=None, options=()):
    args = [sys.executable, CHILD, function, source, checkpoint, log] + ([str(pause_in)] if pause_in is not None else [])
    args += list(options)
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


# --------------------------------------------------------------------------------------------
# Killed while the state store commits a micro-batch


STATE_FILE = re.compile(r"^(\d+)(_[0-9a-fA-F-]+)?\.(delta|changelog)$")
KILL_SIZES = {"sliding_window": ("3 seconds", 3 * SEC), "batch_window": ("2 seconds", 2 * SEC)}
COMMIT_KILL_PARTITIONS = 4
COMMIT_KILL_ATTEMPTS = 3


def state_versions(checkpoint: str) -> dict:
    """{state store directory: the versions whose state files it holds}: version N + 1 is the
    commit of micro-batch N, the HDFS-backed store's `N.delta`, RocksDB's `N.changelog` (with
    changelog checkpointing, which the operator turns on), each written to a temporary file and
    renamed when that partition's store commits."""
    found = {}
    root = os.path.join(checkpoint, "state")
    for operator in (o for o in (os.listdir(root) if os.path.isdir(root) else []) if o.isdigit()):
        for partition in (p for p in os.listdir(os.path.join(root, operator)) if p.isdigit()):
            files = os.listdir(os.path.join(root, operator, partition))
            found[f"{operator}/{partition}"] = {int(m.group(1)) for m in map(STATE_FILE.match, files) if m}
    return found


def batches_in_commit(checkpoint: str) -> set:
    """The micro-batches some store has committed state of while the commit log lacks them."""
    versions = state_versions(checkpoint)
    return {v - 1 for vs in versions.values() for v in vs} - committed_batches(checkpoint)


def kill_in_a_state_commit(child, checkpoint: str, first: int, stores: int):
    """Watches the checkpoint and kills the child's process group as soon as a micro-batch from
    `first` on has state committed by some but not all of its `stores` and is not in the commit
    log; returns that micro-batch, or None if the child finished first."""
    while child.poll() is None:
        versions = state_versions(checkpoint)
        for batch in sorted(b for b in batches_in_commit(checkpoint) if b >= first):
            if sum(batch + 1 in vs for vs in versions.values()) < stores:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait(timeout=60)
                return batch
        time.sleep(0.005)
    return None


def attempts_of_batches(log: str) -> dict:
    """{batch id: (run, rows)} from a --harness child's log: the LAST attempt of each micro-batch
    (foreachBatch re-runs a micro-batch that did not commit); a last line cut by the kill is
    skipped."""
    attempts = {}
    with open(log) as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines):
        try:
            record = json.loads(line)
        except ValueError:
            assert i == len(lines) - 1, f"line {i} of {log} is not JSON: {line!r}"
            continue
        attempts[record["batch"]] = (record["run"], record["rows"])
    return attempts


def progress_of(log: str) -> list:
    """The progress reports the --harness children of `log` wrote, one per micro-batch."""
    with open(log + ".progress") as f:
        return list({p["batchId"]: p for p in map(json.loads, f)}.values())


def assert_one_uninterrupted_run(function: str, stream, size: int, log: str) -> None:
    """The sink's last attempts of the micro-batches (and the progress of each) are what one
    uninterrupted run emits, micro-batch by micro-batch: the harnesses' append-mode CHECKS."""
    rows = [(b, Row(**r)) for b, (_, rs) in sorted(attempts_of_batches(log).items()) for r in rs]
    runs = [streaming_harness.Run(rows, progress_of(log))]
    if function == "sliding_window":
        streaming_harness.CHECKS["append"](stream, runs)
    else:
        batch_window_harness.CHECKS["append"](stream, runs, size)


def harness_stream(tmp_path, name: str, function: str):
    size_text, size = KILL_SIZES[function]
    stream = streaming_harness.generate_stream(f"{name}-{function}", size, cases=6)
    source = str(tmp_path / "in")
    streaming_harness.write_files(source, stream.files)
    return stream, size, source, ["--harness", size_text]


# One window function and store each (both kinds run crashes mid-commit in the operator harness).
@pytest.mark.parametrize("function", ["sliding_window"])
def test_kill_in_the_middle_of_a_batch_then_restart(tmp_path, function):
    """Killed in its sink, once it has written the windows of a micro-batch (the first from
    micro-batch 2 on that emits some): the restart runs that micro-batch again, with the same
    windows, and goes on as if nothing had happened."""
    stream, size, source, options = harness_stream(tmp_path, "sink-kill", function)
    checkpoint, log = str(tmp_path / "ck"), str(tmp_path / "out.jsonl")
    child = run_child(function, source, checkpoint, log, pause_in=2, options=options)
    deadline = time.time() + 300
    while not os.path.exists(log + ".paused"):
        assert child.poll() is None, child.stderr.read()
        assert time.time() < deadline
        time.sleep(0.2)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait(timeout=60)
    before_restart = attempts_of_batches(log)
    victim = max(before_restart)
    assert victim >= 2 and before_restart[victim][1] and victim not in committed_batches(checkpoint)

    restarted = run_child(function, source, checkpoint, log, options=options)
    assert restarted.wait(timeout=300) == 0, restarted.stderr.read()
    attempts = attempts_of_batches(log)
    assert attempts[victim][0] == restarted.pid  # the restart ran the killed micro-batch again
    assert sorted(map(json.dumps, attempts[victim][1])) == sorted(map(json.dumps, before_restart[victim][1]))
    assert_one_uninterrupted_run(function, stream, size, log)


@pytest.mark.parametrize("function,store", [("batch_window", "rocksdb")])
def test_kill_while_the_state_store_commits_then_restart(tmp_path, function, store):
    """The child (the harness's query over a harness stream) is killed with SIGKILL while a
    micro-batch's state commits: at that moment some partition's state store has written its state
    of micro-batch N (version N + 1) and the commit log has no N. The restart re-runs N over the
    state of N - 1 and goes on: the sink's last attempts of the micro-batches are exactly what
    the brute-force references (CHECKS of the harnesses) say one uninterrupted run emits, in the
    same micro-batches, none twice."""
    stream, size, source, options = harness_stream(tmp_path, "commit-kill", function)
    options += ["--store", store, "--partitions", str(COMMIT_KILL_PARTITIONS)]

    for attempt in range(COMMIT_KILL_ATTEMPTS):
        checkpoint, log = str(tmp_path / f"ck{attempt}"), str(tmp_path / f"out{attempt}.jsonl")
        child = run_child(function, source, checkpoint, log, options=options)
        victim = kill_in_a_state_commit(child, checkpoint, first=1, stores=COMMIT_KILL_PARTITIONS)
        if victim is None:
            assert child.returncode == 0, child.stderr.read()
            continue
        # The process group is dead: what the checkpoint holds now is what it held at the kill.
        holders = sorted(p for p, vs in state_versions(checkpoint).items() if victim + 1 in vs)
        if len(holders) < COMMIT_KILL_PARTITIONS:  # else the last store committed before the kill: again
            break
    else:
        pytest.fail(f"no kill landed in a micro-batch's state commit in {COMMIT_KILL_ATTEMPTS} runs")
    assert 0 < len(holders) < COMMIT_KILL_PARTITIONS == len(state_versions(checkpoint)), (victim, holders)
    assert max(committed_batches(checkpoint)) == victim - 1, (victim, sorted(committed_batches(checkpoint)))
    before_restart = attempts_of_batches(log)

    restarted = run_child(function, source, checkpoint, log, options=options)
    assert restarted.wait(timeout=300) == 0, restarted.stderr.read()
    assert victim in committed_batches(checkpoint)
    attempts = attempts_of_batches(log)
    assert attempts[victim][0] == restarted.pid  # the restart ran the killed micro-batch again
    if victim in before_restart:  # the killed attempt reached its sink: the same windows again
        assert sorted(map(json.dumps, attempts[victim][1])) == sorted(map(json.dumps, before_restart[victim][1]))
    assert_one_uninterrupted_run(function, stream, size, log)
