"""Batch and streaming sliding windows on local-cluster[2,1,1024]: two executor JVMs that get
the extension only through the jar configure() ships."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from checkout import SUPPORT
from reference import sliding_windows

pytestmark = pytest.mark.slow  # processes, servers or long runs: `make test` only

CHILD = os.path.join(SUPPORT, "cluster_child.py")
SEC = 1_000_000


def test_batch_and_streaming_on_two_executors(tmp_path):
    rng = random.Random(3)
    base = 1_700_000_000 * SEC
    source = tmp_path / "in"
    source.mkdir()
    events, clock = [], 0
    for i in range(5):  # in-order files: no late rows, so the stream sees every row
        rows = []
        for _ in range(40):
            rows.append({"k": rng.choice("abcde"), "t": base + (clock + rng.randint(0, 900)) * 1000,
                         "v": rng.randint(1, 9)})
        clock += 1000
        events += rows
        path = source / f"{i:03d}.json"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        os.utime(path, (1_000_000 + i, 1_000_000 + i))
    flush = source / "999.json"
    flush.write_text(json.dumps({"k": "__flush", "t": base + (clock + 60_000) * 1000, "v": 0}) + "\n")
    os.utime(flush, (2_000_000, 2_000_000))
    events_path = tmp_path / "events.json"
    events_path.write_text("".join(json.dumps(r) + "\n" for r in events))

    out = tmp_path / "out.json"
    result = subprocess.run(
        [sys.executable, CHILD, str(events_path), str(source), str(tmp_path / "ck"), str(out)],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-5000:]
    got = json.loads(out.read_text())
    assert got["executors"] == 2

    expected = sliding_windows(events, 3 * SEC, key=lambda r: r["k"], time=lambda r: r["t"])
    expected_rows = sorted([k, s, e, len(m), sum(r["v"] for r in m)] for (k, s, e), m in expected.items())
    assert sorted(got["batch"]) == expected_rows
    assert sorted(r for r in got["stream"] if r[0] != "__flush") == expected_rows
