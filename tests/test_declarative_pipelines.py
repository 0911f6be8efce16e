"""Spark Declarative Pipelines (`spark-pipelines`, where the installed pyspark has it) with a
windowed aggregation, run as a new user runs it (docs/deployment.md, "Spark Declarative
Pipelines"): a Python flow reads JSON files with a watermark, a SQL flow is a streaming table of
`sliding_window`, with a Hive metastore so that the pipeline runs again. Each triggered run emits
the batch query's windows for the part its watermark closed; with `closeAtEndOfInput` it also
emits its tail. A streaming table of `batch_window` and a feature table of streaming trailing
windows in the same pipeline, with `closeAtEndOfInput`, get every window and every row of the run
(one pipeline: each run starts a Connect server)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pyspark
import pytest

from checkout import fresh_main_jar
from quiet_stream import SEC, expected, first_events, later_events, write_file
from sliding_window_agg._supported import EXTENSION_CLASS

# The running pyspark's own script (pyspark 4.1 and later), never another one on the PATH.
PIPELINES = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-pipelines")
PIPELINES = PIPELINES if os.access(PIPELINES, os.X_OK) else None
SIZE, SIZE_TEXT = 4 * SEC, "4 seconds"
DELAY, DELAY_TEXT = 2 * SEC, "2 seconds"

# Each run starts a local Spark Connect server on Connect's default port (15002), as
# test_spark_connect's in-process server does: one test worker runs them all, one at a time
# (`make test` runs pytest -n 2 --dist loadgroup).
pytestmark = [pytest.mark.slow, pytest.mark.skipif(PIPELINES is None, reason=f"pyspark {pyspark.__version__} has no spark-pipelines"),
              pytest.mark.xdist_group("connect_default_port")]


WINDOWS_SQL = f"""\
    CREATE STREAMING TABLE windows AS
    SELECT k, sliding_window(ts, '{SIZE_TEXT}') AS w, count(*) AS n, sum(v) AS total
    FROM STREAM(events)
    GROUP BY k, sliding_window(ts, '{SIZE_TEXT}')
    """
BATCHES_SQL = f"""\
    CREATE STREAMING TABLE batches AS
    SELECT k, batch_window(ts, '{SIZE_TEXT}') AS w, count(*) AS n, sum(v) AS total
    FROM STREAM(events)
    GROUP BY k, batch_window(ts, '{SIZE_TEXT}')
    """
FEATURES_SQL = f"""\
    CREATE STREAMING TABLE features AS
    SELECT k, t, v, count(*) OVER w AS n, sum(v) OVER w AS total
    FROM STREAM(events)
    WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL {SIZE_TEXT} PRECEDING AND CURRENT ROW)
    """


def write_pipeline(root: str, source: str, configuration: dict, flow_sql: str = WINDOWS_SQL) -> None:
    conf = "".join(f'  {k}: "{v}"\n' for k, v in configuration.items())
    with open(os.path.join(root, "spark-pipeline.yml"), "w") as f:
        f.write(f"name: windows\nstorage: file://{root}/storage\nconfiguration:\n{conf}"
                "libraries:\n  - glob:\n      include: transformations/**\n")
    os.makedirs(os.path.join(root, "transformations"), exist_ok=True)
    with open(os.path.join(root, "transformations", "events.py"), "w") as f:
        f.write(textwrap.dedent(f"""\
            from pyspark import pipelines as dp
            from pyspark.sql import functions as F
            from pyspark.sql import SparkSession

            spark = SparkSession.active()  # pyspark 4.3 also predefines it; 4.1 and 4.2 do not

            @dp.temporary_view
            def events():
                return (spark.readStream.schema("k string, t long, v long").json("{source}")
                        .withColumn("ts", F.timestamp_micros("t"))
                        .withWatermark("ts", "{DELAY_TEXT}"))
            """))
    with open(os.path.join(root, "transformations", "flow.sql"), "w") as f:
        f.write(textwrap.dedent(flow_sql))


def write_spark_defaults(root: str) -> str:
    """The settings a Connect server takes when it starts, in a `spark-defaults.conf`: the jar,
    the extension and a Hive metastore, so that a later run finds the table the first one made.
    On the command line, pyspark 4.x's local Connect server keeps only the last ten of the
    submit's settings (`PYSPARK_REMOTE_INIT_CONF_*` chunks overwrite each other), which drops the
    extension or the catalog once there are a few of them (docs/deployment.md)."""
    conf_dir = os.path.join(root, "conf")
    os.makedirs(conf_dir, exist_ok=True)
    with open(os.path.join(conf_dir, "spark-defaults.conf"), "w") as f:
        f.write(f"spark.jars {fresh_main_jar()}\n"
                f"spark.sql.extensions {EXTENSION_CLASS}\n"
                "spark.sql.catalogImplementation hive\n"
                f"spark.sql.warehouse.dir {root}/warehouse\n"
                "spark.hadoop.javax.jdo.option.ConnectionURL "
                f"jdbc:derby:;databaseName={root}/metastore_db;create=true\n")
    return conf_dir


def run_pipeline(root: str, conf_dir: str) -> None:
    """`spark-pipelines run` as docs/deployment.md shows it: `SPARK_CONF_DIR` names the folder of
    the server's settings. The Spark and Python of the test's own interpreter (which the script
    would otherwise look up on the PATH)."""
    done = subprocess.run(
        [PIPELINES, "run", "--spec", os.path.join(root, "spark-pipeline.yml")],
        cwd=root, capture_output=True, text=True, timeout=600,
        env=dict(os.environ, SPARK_CONF_DIR=conf_dir, SPARK_HOME=os.path.dirname(pyspark.__file__),
                 PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable))
    assert done.returncode == 0 and "Run is COMPLETED" in done.stdout + done.stderr, \
        (done.stdout + done.stderr)[-6000:]


def table(spark, root: str, name: str = "windows") -> dict:
    rows = spark.read.parquet(os.path.join(root, "warehouse", name)).collect()
    found = {(r["k"], int(round(r["w"]["start"].timestamp() * SEC)), int(round(r["w"]["end"].timestamp() * SEC))):
             (r["n"], r["total"]) for r in rows}
    assert len(found) == len(rows), "windows written twice"
    return found


def closed(events, watermark: int) -> dict:
    return {w: v for w, v in expected(events, "sliding", SIZE).items() if w[2] <= watermark}


def features(spark, root: str) -> list:
    return sorted(tuple(r) for r in spark.read.parquet(os.path.join(root, "warehouse", "features")).collect())


def trailing_features(events) -> list:
    """Each row with the count and sum of its group's rows in [t - size, t]."""
    return sorted((k, t, v, len(inside), sum(e[2] for e in inside)) for k, t, v in events
                  for inside in [[e for e in events if e[0] == k and t - SIZE <= e[1] <= t]])


# With the setting, which shows both: the first run's table would hold only the closed windows
# without it (test_idle_timeout.py runs that case on a plain query).
@pytest.mark.parametrize("close_at_end", [True])
def test_each_run_emits_the_closed_windows_and_with_close_at_end_of_input_the_tail(spark, tmp_path, close_at_end):
    """Two runs of one pipeline, the second with new files: after each, the table of
    `sliding_window` holds the windows its watermark closed, those of the batch query over every
    row so far; with `closeAtEndOfInput` (a session setting: in the spec) every window so far.

    The same pipeline's streaming table of `batch_window` holds every window of the rows so far,
    as the reference applies them file by file. Its streaming table of trailing windows holds, after the first run, every
    row, once, with the count and sum of its group's rows in [t - size, t], the latest rows too
    (without the setting they would wait for the next run; the next runs' rows and late rows are
    tests/test_trailing_idle.py's)."""
    root, source = str(tmp_path / "pipeline"), str(tmp_path / "in")
    os.makedirs(root)
    conf = {"spark.sql.shuffle.partitions": "2"}
    if close_at_end:
        conf["spark.sql.slidingWindow.closeAtEndOfInput"] = "true"
    write_pipeline(root, source, conf, ";\n".join([WINDOWS_SQL, BATCHES_SQL, FEATURES_SQL]))
    conf_dir = write_spark_defaults(root)
    events = []
    for name, new in (("0.json", first_events()), ("1.json", later_events())):
        write_file(source, name, new)
        events += new
        run_pipeline(root, conf_dir)
        want = expected(events, "sliding", SIZE)
        assert table(spark, root) == (want if close_at_end else closed(events, max(e[1] for e in events) - DELAY))
        if close_at_end:
            assert table(spark, root, "batches") == expected(events, "batch", SIZE)
        if name == "0.json":
            assert features(spark, root) == trailing_features(events)
