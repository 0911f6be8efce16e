"""Checkpoints of streaming trailing windows (docs/state-format.md, "Trailing windows"): one per
state store, a query stopped half-way with rows still to emit, in
tests/fixtures/trailing-checkpoints/format-<version>-<store>/ (the state format version the
operator's record holds), laid out as the fixtures of tests/support/checkpoint_fixtures.py
(fixture.json, input/, checkpoint/, first_run.json). tests/test_trailing_windows_streaming.py
restarts each with the current code, feeds the rest of the input and checks both runs together
against the reference.

They pin the state format: written by the current code, which writes one version,

    python tests/support/trailing_fixtures.py
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from typing import List

import checkout
from checkpoint_fixtures import STORES, fixture_session, keep_checkpoint
from streaming_harness import restart_point, run_query, state_store, write_files
from trailing_harness import generate, trailing_query

FIXTURES = os.path.join(checkout.FIXTURES, "trailing-checkpoints")
SEED = 41


def folders() -> List[str]:
    return sorted(os.path.join(FIXTURES, name) for name in os.listdir(FIXTURES))


def write_fixture(spark, store: str, work: str) -> str:
    stream = generate(SEED)
    half = restart_point(stream)
    source, checkpoint = os.path.join(work, "input"), os.path.join(work, "checkpoint")
    write_files(source, stream.files[:half])
    with state_store(spark, STORES[store]):
        run = run_query(spark, source, checkpoint, trailing_query, "append")
    with open(os.path.join(checkpoint, "state", "2000", "_sliding_window_agg", "operator.json")) as f:
        version = json.load(f)["stateFormatVersion"]
    folder = os.path.join(FIXTURES, f"format-{version}-{store}")
    shutil.rmtree(folder, ignore_errors=True)
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


def main() -> None:
    spark = fixture_session()
    for store in STORES:
        with tempfile.TemporaryDirectory() as work:
            print(write_fixture(spark, store, work))
    spark.stop()


if __name__ == "__main__":
    main()
