"""Checkpoints written by released versions, kept forever (docs/streaming.md, "Upgrading").

Each fixture is a streaming query stopped half-way, with windows still open, written by the
release that names its folder: tests/fixtures/checkpoints/<release>/<function>-<mode>-<store>/

    fixture.json    what ran: release, window function, size, output mode, state store,
                    the seed of the generated input, how many input files the first run read
    input/          every input file, one per micro-batch (the first run read the first ones)
    checkpoint/     the query's checkpoint, the input folder's path replaced by @INPUT@
    first_run.json  what the first run emitted (batch id and row) and its progress reports

tests/test_checkpoint_fixtures.py restarts each with the current code, feeds the rest of the
input, and checks the union of both runs against the brute-force references. The queries are
frozen here, as the releases ran them: a query that changed would be refused on restart.

Every release adds its fixtures, written by its own code, on the default Spark and on Spark 3.5
(whose RocksDB state has no time index: another arrangement):

    python tests/support/checkpoint_fixtures.py <release>
    python buildtools/spark_env.py 3.5 --run tests/support/checkpoint_fixtures.py <release>-spark-3.5

Checkpoints also move to later Spark versions, keeping how their state is arranged
(docs/compatibility.md): tests/fixtures/checkpoints/spark-<version>/ holds RocksDB checkpoints
written on an earlier Spark, whose arrangement differs from a new query's on the default Spark,
restarted by the same test. They were written by this code run on that Spark:

    python buildtools/spark_env.py 3.5 --run tests/support/checkpoint_fixtures.py spark-3.5 rocksdb
"""
from __future__ import annotations

import glob
import json
import os
import shutil
import sys
from typing import Callable, List

from pyspark.sql import DataFrame, Row
from pyspark.sql import functions as F

import checkout
import sliding_window_agg as swa
from streaming_harness import (HDFS, MTIME_BASE, ROCKSDB, SEC, Run, Stream, generate_stream, restart_point,
                               run_query, state_store, write_files)
from windows_util import window_micros

FIXTURES = os.path.join(checkout.FIXTURES, "checkpoints")
INPUT_PLACEHOLDER = "@INPUT@"

STORES = {"rocksdb": ROCKSDB, "default": HDFS}
# Window function -> (size, seed of the generated input).
FUNCTIONS = {"sliding_window": ("10 seconds", 31), "batch_window": ("2 seconds", 32)}
MODES = ["append", "update"]


def query(function: str, size_text: str) -> Callable[[DataFrame], DataFrame]:
    """The query every fixture of `function` runs: as release 0.1.0 ran it."""
    def build(stream: DataFrame) -> DataFrame:
        window = getattr(swa, function)("ts", size_text)
        aggregates = {"n": F.count("*"), "total": F.sum("v"), "hi": F.max("v")}
        if function == "sliding_window":
            aggregates["vs"] = F.collect_list("v")
        aggregates["ids"] = F.collect_list("id")
        return (stream.withWatermark("ts", "5 seconds").groupBy("case", "k", window)
                .agg(*[a.alias(name) for name, a in aggregates.items()])
                .select("case", "k", *window_micros(function), *aggregates))

    return build


def stream_of(function: str) -> Stream:
    size_text, seed = FUNCTIONS[function]
    return generate_stream(seed, int(size_text.split()[0]) * SEC, cases=4)


class Fixture:
    """One fixture folder."""

    def __init__(self, folder: str):
        self.folder = folder
        with open(os.path.join(folder, "fixture.json")) as f:
            self.meta = json.load(f)
        self.function: str = self.meta["function"]
        self.size_text: str = self.meta["size"]
        self.mode: str = self.meta["mode"]
        self.store: str = STORES[self.meta["store"]]
        self.files_read: int = self.meta["files_read"]

    @property
    def name(self) -> str:
        return f"{self.meta['release']}/{os.path.basename(self.folder)}"

    def stream(self) -> Stream:
        """The input, as files read back from the fixture."""
        files = []
        folder = os.path.join(self.folder, "input")
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name)) as f:
                files.append([tuple(json.loads(line)[c] for c in ("case", "k", "t", "v", "id"))
                              for line in f])
        return Stream(files, int(self.size_text.split()[0]) * SEC)

    def first_run(self) -> Run:
        with open(os.path.join(self.folder, "first_run.json")) as f:
            saved = json.load(f)
        return Run([(b, Row(**r)) for b, r in saved["rows"]], saved["progress"])

    def restore(self, into: str) -> tuple:
        """Copies the input and the checkpoint into `into`; returns (input, checkpoint)."""
        return restore(self.folder, into)


def oldest_spark_for_checkpoint(checkpoint: str, default: bool) -> tuple:
    """The oldest Spark that runs the state arrangement a checkpoint's record names
    (docs/compatibility.md): a time index needs Spark 4.0's column families, rows ordered by time
    4.2's range scans. `default`: whether a checkpoint without a record has both."""
    records = glob.glob(os.path.join(checkpoint, "state", "*", "_sliding_window_agg", "operator.json"))
    if records:
        with open(records[0]) as f:
            record = json.load(f)
        time_index, ordered = record.get("timeIndex", False), record.get("orderedRows", False)
    else:
        time_index = ordered = default
    return (4, 2) if ordered else (4, 0) if time_index else (3, 5)


def restore(folder: str, into: str) -> tuple:
    """Copies a fixture folder's input and checkpoint into `into`, the checkpoint pointing at
    the copied input; returns (input, checkpoint)."""
    source, checkpoint = os.path.join(into, "input"), os.path.join(into, "checkpoint")
    shutil.copytree(os.path.join(folder, "input"), source)
    shutil.copytree(os.path.join(folder, "checkpoint"), checkpoint)
    for i, name in enumerate(sorted(os.listdir(source))):  # the file source orders by mtime
        os.utime(os.path.join(source, name), (MTIME_BASE + i, MTIME_BASE + i))
    replace_in_text_files(os.path.join(checkpoint, "sources"), INPUT_PLACEHOLDER,
                          os.path.abspath(source))
    return source, checkpoint


def keep_checkpoint(checkpoint: str, source: str, folder: str) -> None:
    """Copies a query's checkpoint into a fixture folder, its input path a placeholder."""
    shutil.copytree(checkpoint, os.path.join(folder, "checkpoint"))
    replace_in_text_files(os.path.join(folder, "checkpoint", "sources"), os.path.abspath(source),
                          INPUT_PLACEHOLDER)


def replace_in_text_files(folder: str, old: str, new: str) -> None:
    """The file source's log records the absolute path of every file it read."""
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            if name.startswith(".") and name.endswith(".crc"):
                os.remove(path)  # checksums of the rewritten files would no longer match
                continue
            with open(path) as f:
                text = f.read()
            if old in text:
                with open(path, "w") as f:
                    f.write(text.replace(old, new))


def all_fixtures() -> List[Fixture]:
    found = []
    for release in sorted(os.listdir(FIXTURES)):
        for name in sorted(os.listdir(os.path.join(FIXTURES, release))):
            found.append(Fixture(os.path.join(FIXTURES, release, name)))
    return found


def write_fixture(spark, release: str, function: str, mode: str, store: str, work: str) -> str:
    """Runs the first half of the fixture's input with the code installed now and keeps what
    it wrote."""
    size_text, seed = FUNCTIONS[function]
    stream = stream_of(function)
    half = restart_point(stream)
    folder = os.path.join(FIXTURES, release, f"{function}-{mode}-{store}")
    shutil.rmtree(folder, ignore_errors=True)
    source, checkpoint = os.path.join(work, "input"), os.path.join(work, "checkpoint")
    write_files(source, stream.files[:half])
    with state_store(spark, STORES[store]):
        run = run_query(spark, source, checkpoint, query(function, size_text), mode)
    write_files(os.path.join(folder, "input"), stream.files)
    keep_checkpoint(checkpoint, source, folder)
    with open(os.path.join(folder, "first_run.json"), "w") as f:
        json.dump({"rows": [(b, r.asDict()) for b, r in run.rows],
                   "progress": [{k: p[k] for k in ("batchId", "numInputRows", "eventTime",
                                                   "stateOperators")} for p in run.progress]},
                  f, indent=1)
    with open(os.path.join(folder, "fixture.json"), "w") as f:
        json.dump({"release": release, "function": function, "size": size_text, "mode": mode,
                   "store": store, "seed": seed, "files_read": half}, f, indent=1)
        f.write("\n")
    return folder


def fixture_session():
    """The session fixtures are written in: two shuffle partitions (two state stores), UTC."""
    from pyspark.sql import SparkSession

    spark = swa.configure(SparkSession.builder.master("local[2]")
                          .config("spark.sql.shuffle.partitions", "2")
                          .config("spark.sql.session.timeZone", "UTC")
                          .config("spark.ui.enabled", "false")).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main(release: str, stores: List[str]) -> None:
    import tempfile

    spark = fixture_session()
    for function in FUNCTIONS:
        for mode in MODES:
            for store in stores:
                with tempfile.TemporaryDirectory() as work:
                    print(write_fixture(spark, release, function, mode, store, work))
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] or list(STORES))
