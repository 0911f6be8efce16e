"""Spark Declarative Pipelines (`spark-pipelines`, where the installed pyspark has it) with a
windowed aggregation, run as a new user runs it (docs/deployment.md, "Spark Declarative
Pipelines"): a Python flow reads JSON files with a watermark, a SQL flow is a streaming table of
`sliding_window`. A triggered run emits the batch query's windows for the part its watermark
closed; with `closeAtEndOfInput` it also emits its tail."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from checkout import fresh_main_jar
from quiet_stream import SEC, expected, first_events, later_events, write_file
from sliding_window_agg._supported import EXTENSION_CLASS

PIPELINES = shutil.which("spark-pipelines",
                         path=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
SIZE, SIZE_TEXT = 4 * SEC, "4 seconds"
DELAY, DELAY_TEXT = 2 * SEC, "2 seconds"

pytestmark = pytest.mark.skipif(PIPELINES is None, reason="this pyspark has no spark-pipelines")


def write_pipeline(root: str, source: str, configuration: dict) -> None:
    conf = "".join(f'  {k}: "{v}"\n' for k, v in configuration.items())
    with open(os.path.join(root, "spark-pipeline.yml"), "w") as f:
        f.write(f"name: windows\nstorage: file://{root}/storage\nconfiguration:\n{conf}"
                "libraries:\n  - glob:\n      include: transformations/**\n")
    os.makedirs(os.path.join(root, "transformations"), exist_ok=True)
    with open(os.path.join(root, "transformations", "events.py"), "w") as f:
        f.write(textwrap.dedent(f"""\
            from pyspark import pipelines as dp
            from pyspark.sql import functions as F

            @dp.temporary_view
            def events():
                return (spark.readStream.schema("k string, t long, v long").json("{source}")
                        .withColumn("ts", F.timestamp_micros("t"))
                        .withWatermark("ts", "{DELAY_TEXT}"))
            """))
    with open(os.path.join(root, "transformations", "windows.sql"), "w") as f:
        f.write(textwrap.dedent(f"""\
            CREATE STREAMING TABLE windows AS
            SELECT k, sliding_window(ts, '{SIZE_TEXT}') AS w, count(*) AS n, sum(v) AS total
            FROM STREAM(events)
            GROUP BY k, sliding_window(ts, '{SIZE_TEXT}')
            """))


def run_pipeline(root: str) -> None:
    """`spark-pipelines run` with the extension's jar and class on the command line (static
    settings: the spec's `configuration` cannot set them)."""
    done = subprocess.run(
        [PIPELINES, "--jars", fresh_main_jar(), "--conf", f"spark.sql.extensions={EXTENSION_CLASS}",
         "--conf", f"spark.sql.warehouse.dir={root}/warehouse", "run", "--spec",
         os.path.join(root, "spark-pipeline.yml")],
        cwd=root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "Run is COMPLETED" in done.stdout + done.stderr, \
        (done.stdout + done.stderr)[-6000:]


def table(spark, root: str) -> dict:
    rows = spark.read.parquet(os.path.join(root, "warehouse", "windows")).collect()
    found = {(r["k"], int(round(r["w"]["start"].timestamp() * SEC)), int(round(r["w"]["end"].timestamp() * SEC))):
             (r["n"], r["total"]) for r in rows}
    assert len(found) == len(rows), "windows written twice"
    return found


def closed(events, watermark: int) -> dict:
    return {w: v for w, v in expected(events, "sliding", SIZE).items() if w[2] <= watermark}


@pytest.mark.parametrize("close_at_end", [False, True])
def test_a_triggered_run_emits_the_closed_windows_and_with_close_at_end_of_input_the_tail(spark, tmp_path, close_at_end):
    """A run emits the windows its watermark closed, those of the batch query; with
    `closeAtEndOfInput` (a session setting: in the spec) every window."""
    root, source = str(tmp_path / "pipeline"), str(tmp_path / "in")
    os.makedirs(root)
    events = first_events() + later_events()
    write_file(source, "0.json", events)
    conf = {"spark.sql.shuffle.partitions": "2"}
    if close_at_end:
        conf["spark.sql.slidingWindow.closeAtEndOfInput"] = "true"
    write_pipeline(root, source, conf)
    run_pipeline(root)
    want = expected(events, "sliding", SIZE)
    assert table(spark, root) == (want if close_at_end else closed(events, max(e[1] for e in events) - DELAY))
