"""Shared by the deployment tests (spark-sql CLI, spark-submit, Spark Connect, installs and
wheels): the Spark that pyspark ships, and the contract's example (spec_example.py) as the SQL
and rows these tests run and compare."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

import pytest

import sliding_window_agg as swa
from checkout import ROOT, fresh_main_jar
from sliding_window_agg._supported import BUILD_INFO_ENTRY
from spec_example import ROWS as SPEC_ROWS
from spec_example import SIZE as SPEC_SIZE
from spec_example import WINDOWS

SPARK_HOME = os.path.dirname(os.path.abspath(__import__("pyspark").__file__))

# Window start, end (microseconds), row count, ids in the window.
SPEC_SLIDING = [(start, end, len(ids), ids) for start, end, ids in WINDOWS]

# sliding_window(ts, size) over the contract example rows, as the window bounds in microseconds.
SPEC_SQL = (
    "SELECT unix_micros(w.start) AS s, unix_micros(w.end) AS e, n, ids FROM ("
    f" SELECT sliding_window(ts, '{SPEC_SIZE}') AS w, count(*) AS n,"
    "  concat_ws('', sort_array(collect_list(id))) AS ids"
    "  FROM VALUES " + ", ".join(f"('{i}', timestamp_micros({t}))" for i, t in SPEC_ROWS)
    + f"  AS events(id, ts) GROUP BY sliding_window(ts, '{SPEC_SIZE}')"
    ") ORDER BY s"
)


def spark_env(**extra: str) -> dict:
    """The environment for pyspark's bin/ and sbin/ scripts: pyspark's own Spark, this Python."""
    if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        pytest.skip("needs a JDK: java on PATH or JAVA_HOME")
    import sys

    env = {**os.environ, "SPARK_HOME": SPARK_HOME, "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable}
    for name in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED", "SPARK_LOCAL_REMOTE", "MASTER"):
        env.pop(name, None)
    env.update(extra)
    return env


def parse_rows(text: str, prefix: str = "") -> list:
    """(s, e, n, ids) from tab-separated lines, as spark-sql prints them, optionally prefixed."""
    rows = []
    for line in text.splitlines():
        if not line.startswith(prefix):
            continue
        fields = line[len(prefix):].split("\t")
        if len(fields) == 4 and fields[0].lstrip("-").isdigit():
            rows.append((int(fields[0]), int(fields[1]), int(fields[2]), fields[3]))
    return rows


# What `pip install` and `pip wheel` read of a checkout.
PACKAGE_SOURCES = ["setup.py", "pyproject.toml", "MANIFEST.in", "README.md", "buildtools", "scala/src/main",
                   "python/sliding_window_agg"]


def copy_package_sources(target, ignore=("__pycache__",)) -> str:
    """A copy of the checkout's package sources in `target` (pip builds in the source tree), with
    the names matching `ignore` left out."""
    for name in PACKAGE_SOURCES:
        path = os.path.join(ROOT, name)
        if os.path.isdir(path):
            shutil.copytree(path, os.path.join(target, name), ignore=shutil.ignore_patterns(*ignore))
        else:
            os.makedirs(os.path.join(target, os.path.dirname(name)), exist_ok=True)
            shutil.copy2(path, os.path.join(target, name))
    return str(target)


def relabelled_jar(tmp_path, spark_version: str) -> str:
    """The running Spark's jar, recording `spark_version` as the Spark it was compiled against."""
    out = tmp_path / f"sliding-window-agg-for-{spark_version}.jar"
    with zipfile.ZipFile(fresh_main_jar()) as jar, zipfile.ZipFile(out, "w") as copy:
        for item in jar.infolist():
            data = jar.read(item)
            if item.filename == BUILD_INFO_ENTRY:
                data = f"spark.version={spark_version}\nversion={swa.__version__}\n".encode()
            copy.writestr(item, data)
    return str(out)


START_WITH_JARS = """
from pyspark.sql import SparkSession
try:
    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .config("spark.jars", JAR).config("spark.sql.extensions", EXTENSION).getOrCreate())
    print(spark.sql("SELECT count(*) FROM VALUES (TIMESTAMP'2024-01-01 00:00:00') AS t(ts) "
                    "GROUP BY sliding_window(ts, '1 second')").collect()[0][0])
except Exception as e:
    print(e)
"""


def started_with(jar: str) -> str:
    """What a session started with `--jars jar` (no Python check) prints: a count, or its error."""
    probe = f"JAR = {jar!r}\nEXTENSION = {swa.EXTENSION_CLASS!r}\n" + START_WITH_JARS
    env = {k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"}
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout
