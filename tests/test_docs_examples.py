"""The outputs pasted in the documentation are what the example scripts print: each script of
docs/examples/ runs in the test session, and its output must equal the code blocks marked
`<!-- output: docs/examples/<script>.py -->` in its page (blank lines and trailing spaces aside),
so a change of behaviour cannot leave the documentation behind. They do on every supported Spark
(`make test` runs the every_spark tests on each), and use only the package's public API."""
from __future__ import annotations

import importlib.util
import io
import os
import re
import subprocess
import sys
from contextlib import redirect_stdout

import pytest

from documented_output import documented_output, normalize

pytestmark = pytest.mark.slow  # processes, servers or long runs: `make test` only

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "docs", "examples")

# (script in docs/examples, page in docs/)
PAGES = [
    ("quickstart.py", "getting-started.md"),
    ("streaming_modes.py", "streaming.md"),
    ("streaming_restart.py", "streaming.md"),
    ("kafka_migration.py", "kafka-migration.md"),
    ("batch_windows.py", "batch-windows.md"),
    ("late_rows.py", "streaming.md"),
    ("trailing_streaming.py", "trailing-windows.md"),
    ("idle_timeout.py", "streaming.md"),
    ("python_aggregates.py", "python-aggregates.md"),
]


def load(script: str):
    spec = importlib.util.spec_from_file_location(script[:-3], os.path.join(EXAMPLES, script))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def printed(action) -> list:
    """The lines `action()` prints (normalized)."""
    out = io.StringIO()
    with redirect_stdout(out):
        action()
    return normalize(out.getvalue())


def printed_by(spark, script: str, work: str) -> list:
    if script != "late_rows.py":
        return printed(lambda: load(script).run_example(spark, work))
    # Its late-rows table in a database of the test's own (the test workers share a warehouse).
    database = f"late_rows_example_{os.getpid()}"
    spark.sql(f"CREATE DATABASE {database} LOCATION '{work}/database'")
    try:
        return printed(lambda: load(script).run_example(spark, work, table=f"{database}.late_rows"))
    finally:
        spark.sql(f"DROP DATABASE {database} CASCADE")


@pytest.mark.every_spark
def test_documented_output_is_what_each_example_prints(spark, tmp_path):
    """Every script, one after the other in one test: `-m every_spark` runs a parametrized test
    with its first parameters only."""
    wrong = {}
    for script, page in PAGES:
        if script == "streaming_modes.py" and spark.version.startswith("3."):
            continue  # the documented state rows are Spark 4's, whose RocksDB state has a time index
            # entry per group (docs/compatibility.md): Spark 3.5 shows one row fewer
        expected = normalize(documented_output(f"docs/{page}", f"docs/examples/{script}"))
        work = tmp_path / script[:-3]
        work.mkdir()
        lines = printed_by(spark, script, str(work))
        if lines != expected:
            wrong[script] = {"printed": lines, "documented": expected}
    assert not wrong, wrong


def test_examples_use_only_the_public_api():
    """A user copies an example: it imports no private module of the package and uses no private
    name of it."""
    import ast

    for script in sorted(os.listdir(EXAMPLES)):
        if not script.endswith(".py"):
            continue
        with open(os.path.join(EXAMPLES, script)) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                names = [] if isinstance(node, ast.Import) else [a.name for a in node.names]
                for module in modules:
                    if module.startswith("sliding_window_agg"):
                        private = [p for p in module.split(".") + names if p.startswith("_")]
                        assert not private, f"{script} imports {module} {names}"
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "swa":
                assert not node.attr.startswith("_"), f"{script} uses swa.{node.attr}"


def test_readme_shows_an_excerpt_of_what_the_example_prints(spark, tmp_path):
    """The README shows the streaming part of docs/examples/batch_windows.py's output."""
    excerpt = normalize(documented_output("README.md", "docs/examples/batch_windows.py"))
    lines = printed_by(spark, "batch_windows.py", str(tmp_path))
    starts = [i for i in range(len(lines)) if lines[i:i + len(excerpt)] == excerpt]
    assert excerpt and starts, (excerpt, lines)


def test_scala_reference_shows_what_the_scala_example_prints():
    """docs/examples/ScalaExample.scala, compiled with pyspark's Scala compiler and run in its
    own JVM (run_scala_example.py), prints the outputs of docs/scala-reference.md."""
    expected = normalize(documented_output("docs/scala-reference.md", "docs/examples/ScalaExample.scala"))
    result = subprocess.run([sys.executable, os.path.join(EXAMPLES, "run_scala_example.py")],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert normalize(result.stdout) == expected


def readme_block(marker: str, language: str) -> str:
    """The code block in README.md just before the output block marked `marker`."""
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    before = text[:text.index(f"<!-- output: README {marker} -->")]
    return re.findall(rf"```{language}\n(.*?)\n```", before, flags=re.S)[-1]


def alice_events(spark):
    from sliding_window_agg.demo import events
    return events(spark).filter("user = 'alice'")


def test_readme_sql_example_prints_what_the_readme_shows(spark):
    alice_events(spark).createOrReplaceTempView("events")
    shown = normalize(documented_output("README.md", "README sql"))
    assert printed(lambda: spark.sql(readme_block("sql", "sql")).show(truncate=False)) == shown


def test_readme_python_example_prints_what_the_readme_shows(spark):
    """The README's PySpark snippet, run as it is on alice's events; the README elides the last
    rows of the table (`...`)."""
    shown = normalize(documented_output("README.md", "README python"))
    assert shown[-1] == "..."
    run = printed(lambda: exec(readme_block("python", "python"), {"events": alice_events(spark)}))
    assert run[:len(shown) - 1] == shown[:-1]
