"""The benchmarks of docs/performance.md still run, on tiny inputs (their figures are not checked:
no timing assertion belongs in a test). batch also checks that sliding_window and the plain-Spark
query give the same rows, and exits non-zero when they do not."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # processes, servers or long runs: `make test` only

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_benchmark(module: str, *args: str, timeout: int = 300) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [ROOT, os.path.join(ROOT, "python"), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def test_batch_benchmark_runs_and_finds_the_same_rows(tmp_path):
    report = tmp_path / "batch.md"
    out = run_benchmark("benchmarks.batch", "--rows", "20000", "--groups", "10",
                        "--rows-per-window", "10,100", "--repeat", "1", "--hopping-max", "10",
                        "--report", str(report))
    assert "same rows: True" in out
    text = report.read_text()
    assert "| 10 |" in text and "| 100 |" in text and "(a) / (d)" in text


def test_trailing_benchmark_runs_and_finds_the_same_rows(tmp_path):
    report = tmp_path / "trailing.md"
    out = run_benchmark("benchmarks.trailing", "--rows", "20000", "--groups", "10",
                        "--rows-per-frame", "10,100", "--repeat", "1", "--report", str(report))
    assert out.count("same rows: True") == 2
    text = report.read_text()
    assert "| 10 |" in text and "| 100 |" in text and "Spark / ours" in text


def test_trailing_streaming_benchmark_runs(tmp_path):
    report = tmp_path / "trailing_streaming.md"
    out = run_benchmark("benchmarks.trailing_streaming", "--groups", "20", "--rows-per-batch", "200",
                        "--sizes", "2,4", "--advance", "2", "--delay", "1", "--measured", "3",
                        "--partitions", "2", "--profile", "--methods", "5", "--report", str(report))
    assert "trailing:" in out and "window:" in out
    assert "-- methods by self CPU samples" in out  # --methods: each profiled query's
    text = report.read_text()
    assert "trailing windows 2 s, 4 s (one operator)" in text and "Spark's window() of 4 s" in text
    assert "| trailing windows 2 s |" in text  # the first frame alone
    assert re.search(r"Trailing windows / window\(\): [\d.]+x the rows per second \([\d.]+x with one frame\)", text)
    # Each query's state operator time per micro-batch, from its `stateOperators` progress.
    header = next(line for line in text.splitlines() if line.startswith("| query"))
    assert "| state updates ms | state commit ms |" in header and header.endswith("| CPU samples (JFR) |")
    for query in ("trailing windows 2 s, 4 s (one operator)", "trailing windows 2 s |", "Spark's window() of 4 s"):
        cells = next(line for line in text.splitlines() if line.startswith(f"| {query}")).split("|")[1:-1]
        assert len(cells) == 8 and int(cells[4].replace(",", "")) > 0, cells  # every commit takes time
        assert "%" in cells[7], cells  # --profile: the shares of its CPU samples by part


def test_streaming_benchmark_measures_each_shape_in_a_process_of_its_own(tmp_path):
    """Two shapes, each in a JVM of its own, each query measured, then profiled (the order of
    several rounds: test_streaming_benchmark_interleaves_its_rounds)."""
    report = tmp_path / "streaming.md"
    out = run_benchmark("benchmarks.streaming", "--shapes", "40:2:10,30:1:10", "--advance", "10",
                        "--delay", "5", "--measured", "2", "--partitions", "2", "--rounds", "1", "--profile",
                        "--report", str(report), timeout=600)
    text = report.read_text()
    assert "run 1 times interleaved" in text
    for shape in ("40 groups x 2 rows, 10 s window", "30 groups x 1 row, 10 s window"):
        assert f"| {shape} | sliding_window, append |" in text and f"- {shape}: update mode sustains" in text
    assert "CPU samples (JFR)" in text and "Spark" in text  # the profile: shares by part
    results = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [(r["shape_key"], r["name"], r["mode"]) for r in results] == [
        ([g, r, 10.0], name, mode) for g, r in ((40, 2), (30, 1))
        for name, mode in (("sliding_window", "append"), ("sliding_window", "update"), ("window()", "append"))]
    # Each measured micro-batch's time, in order: 2 (--measured) of each query.
    for r in results:
        assert len(r["batch_ms"]) == r["batches"] == 2 and all(ms > 0 for ms in r["batch_ms"]), r
        assert len(r["rounds"]) == 1 and r["profile"], r
    # A shape's queries share a JVM, and no other shape's ran in it.
    assert len({r["jvm_pid"] for r in results[:3]}) == len({r["jvm_pid"] for r in results[3:]}) == 1
    assert results[0]["jvm_pid"] != results[3]["jvm_pid"]


def test_streaming_benchmark_interleaves_its_rounds(monkeypatch):
    """`--rounds 3`: the three queries of a shape run three times, each round starting with the
    next query, and each query's figures are those of its median round (no Spark: the queries
    are stand-ins that record their turn)."""
    sys.path.insert(0, ROOT)
    from benchmarks import streaming

    order, speeds = [], {"append": [30, 10, 20], "update": [5, 6, 7], "window": [9, 8, 1]}

    def queries(spark, args, shape):
        def run(name):
            def measured(profile):
                order.append(name)
                return {"name": name, "rows_per_s": speeds[name][len([o for o in order if o == name]) - 1]}
            return measured
        return {name: run(name) for name in ("append", "update", "window")}

    class Jvm:
        class java:
            class lang:
                class ProcessHandle:
                    @staticmethod
                    def current():
                        return type("Handle", (), {"pid": staticmethod(lambda: 42)})()

    monkeypatch.setattr(streaming, "shape_queries", queries)
    monkeypatch.setattr(streaming, "release", lambda spark: None)
    args = streaming.parse(["--rounds", "3", "--shapes", "10:1:10"])
    results = streaming.run_shape(type("Spark", (), {"_jvm": Jvm})(), args, args.shapes[0])
    assert order == ["append", "update", "window", "update", "window", "append", "window", "append", "update"]
    assert [(r["name"], r["rows_per_s"], r["rounds"]) for r in results] == [
        ("append", 20, [30, 10, 20]), ("update", 6, [5, 6, 7]), ("window", 8, [9, 8, 1])]


def test_memory_benchmark_runs():
    """The trailing case at a size an operator that collects the rows due before emitting them
    cannot take in the benchmark's 640 MiB heap: 500,000 rows of 1,000 characters (about 520 MB)
    kept waiting in one partition, then all due at once."""
    out = run_benchmark("benchmarks.memory", "--rows", "100000", "--windows", "20000",
                        "--trailing-rows", "500000", "--trailing-groups", "100", "--trailing-payload", "1000",
                        timeout=900)
    assert "100,000" in out  # the group case
    assert "| 20,000 |" in out  # the stream case: windows closed in one micro-batch, all emitted
    trailing = next(line for line in out.splitlines() if line.startswith("| 500,000 | 100 |"))
    cells = [c.strip() for c in trailing.split("|")[1:-1]]
    assert cells[4] == "640 MiB" and cells[9] == "500,000", cells  # the heap; every row emitted


def test_spark_versions_benchmark_measures_both_queries_on_this_spark():
    """Its child, which each Spark's virtualenv runs, on the Spark of this run."""

    out = run_benchmark("benchmarks.spark_versions", "--child", "--groups", "50", "--rows-per-batch", "200",
                        "--advance", "10", "--window", "10", "--delay", "5", "--measured", "2",
                        "--partitions", "2")
    line = next(line for line in out.splitlines() if line.startswith("RESULT "))
    found = json.loads(line[len("RESULT "):])
    assert [r["name"] for r in found["results"]] == ["sliding_window", "window"]
    assert all(r["rows_per_s"] > 0 and r["rows_in"] == 200 for r in found["results"]), found


def test_trailing_csv_benchmark_runs_each_query_on_the_csv_stream(tmp_path):
    """The Flink comparison's Spark side beside Spark's floor: each query over CSV files read one
    per micro-batch (here three queries in one child JVM; the benchmark gives each a JVM of its
    own), and the report of their medians against the floor."""
    data = tmp_path / "data"
    data.mkdir()
    for f in range(3):
        rows = [(k, 1_700_000_000_000 + (f * 100 + i) * 1000, i % 7) for i in range(100) for k in range(3)]
        (data / f"part-{f}.csv").write_text("".join(f"{k},{ms},{v}\n" for k, ms, v in rows))
    out = run_benchmark("benchmarks.trailing_csv", str(data), "--sizes", "1,2",
                        "--one", "trailing,shuffle only,window()")
    results = [json.loads(line[len("RESULT "):]) for line in out.splitlines() if line.startswith("RESULT ")]
    assert [r["query"] for r in results] == ["trailing", "shuffle only", "window()"]
    assert all(r["rows"] == 900 and r["batches"] >= 3 for r in results), results
    # Where its micro-batches' time went (`durationMs`), and its JVM's CPU with the JIT's.
    assert all(len(r["first_ms"]) == 2 and r["steady_ms"]["addBatch"] > 0 for r in results), results
    assert all(r["jvm_cpu_s"] > r["jit_cpu_s"] > 0 for r in results), results

    from benchmarks import trailing_csv
    args = trailing_csv.parse([str(data), "--sizes", "1,2", "--rounds", "1"])
    report = trailing_csv.render(args, {
        name: {"rows_per_s": rate, "low": rate, "high": rate, "rows": 900, "batches": 4}
        for name, rate in (("trailing", 500.0), ("shuffle only", 1000.0), ("window()", 250.0))})
    assert "| trailing windows 1 min, 2 min (one operator) | 500 | 500 to 500 | 0.50x |" in report
    assert ("| the rows shuffled by the key, the same columns, no operator (Spark's floor) | 1,000 | 1,000 to 1,000 "
            "| 1.00x |") in report
    assert "| Spark's window() of 2 min | 250 | 250 to 250 | 0.25x |" in report
    assert "| query | 1st micro-batch ms |" not in report  # no phases measured: no table
    phases = {"first_ms": [3000, 1500], "jvm_cpu_s": 40.0, "jit_cpu_s": 15.5,
              "steady_ms": {"triggerExecution": 600, "addBatch": 400, "queryPlanning": 30, "latestOffset": 40,
                            "walCommit": 45, "commitOffsets": 42}}
    with_phases = trailing_csv.render(args, {
        "trailing": dict(rows_per_s=500.0, low=500, high=500, rows=900, batches=4, **phases),
        "shuffle only": dict(rows_per_s=1000.0, low=1000, high=1000, rows=900, batches=4)})
    assert ("| trailing windows 1 min, 2 min (one operator) | 3,000 | 1,500 | 600 | 400 | 30 | 40 | 45 | 42 | 40.0 "
            "| 15.5 |") in with_phases


def test_late_rows_benchmark_runs_each_query_with_and_without_the_table(tmp_path):
    """The stream with one row in ten late, through both operators, with and without a late-rows
    table (the benchmark checks that every late row was written where there is one)."""
    report = tmp_path / "late_rows.md"
    out = run_benchmark("benchmarks.late_rows", "--groups", "20", "--rows-per-batch", "400", "--advance", "4",
                        "--measured", "2", "--partitions", "2", "--warmup", "0", "--report", str(report))
    for name in ("sliding_window, without the table", "sliding_window, with the table",
                 "trailing windows, without the table", "trailing windows, with the table"):
        assert f"{name}: " in out, out
    text = report.read_text()
    assert "400 rows per micro-batch (10% of them late)" in text, text
    for kind in ("sliding_window", "trailing windows"):
        cells = next(line for line in text.splitlines() if line.startswith(f"| {kind} |")).split("|")[1:-1]
        assert re.fullmatch(r" [\d.]+x ", cells[3]) and cells[4].strip() == "40", cells
