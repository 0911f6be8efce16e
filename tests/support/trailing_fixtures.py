"""Checkpoints of streaming trailing windows, kept forever (docs/state-format.md, "Trailing
windows"): one per state format version and state store, a query stopped half-way with rows
still to emit, in tests/fixtures/trailing-checkpoints/format-<version>-<store>/, laid out as the
fixtures of tests/support/checkpoint_fixtures.py (fixture.json, input/, checkpoint/,
first_run.json). tests/test_trailing_windows_streaming.py restarts each with the current code,
feeds the rest of the input and checks both runs together against the reference.

A new state format version adds its fixtures, written by the code that introduces it, before
the format changes again:

    python tests/support/trailing_fixtures.py <version>
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from typing import List

import checkout
from checkpoint_fixtures import STORES, fixture_session, keep_checkpoint
from streaming_harness import restart_point, run_query, session_conf, state_store, write_files
from trailing_harness import generate, trailing_query

FIXTURES = os.path.join(checkout.FIXTURES, "trailing-checkpoints")
SEED = 41


def folders() -> List[str]:
    return sorted(os.path.join(FIXTURES, name) for name in os.listdir(FIXTURES))


def write_fixture(spark, version: int, store: str, work: str) -> str:
    stream = generate(SEED)
    half = restart_point(stream)
    folder = os.path.join(FIXTURES, f"format-{version}-{store}")
    shutil.rmtree(folder, ignore_errors=True)
    source, checkpoint = os.path.join(work, "input"), os.path.join(work, "checkpoint")
    write_files(source, stream.files[:half])
    with state_store(spark, STORES[store]), \
            session_conf(spark, "spark.sql.slidingWindow.trailingWindows.state.formatVersion", str(version)):
        run = run_query(spark, source, checkpoint, trailing_query, "append")
    write_files(os.path.join(folder, "input"), stream.files)
    keep_checkpoint(checkpoint, source, folder)
    with open(os.path.join(folder, "first_run.json"), "w") as f:
        json.dump({"rows": [(b, r.asDict()) for b, r in run.rows],
                   "progress": [{k: p[k] for k in ("batchId", "numInputRows", "eventTime", "stateOperators")}
                                for p in run.progress]}, f, indent=1)
    with open(os.path.join(folder, "fixture.json"), "w") as f:
        json.dump({"stateFormatVersion": version, "store": store, "seed": SEED, "files_read": half,
                   "spark": spark.version}, f, indent=1)
        f.write("\n")
    return folder


def main(version: int) -> None:
    spark = fixture_session()
    for store in STORES:
        with tempfile.TemporaryDirectory() as work:
            print(write_fixture(spark, version, store, work))
    spark.stop()


if __name__ == "__main__":
    main(int(sys.argv[1]))
