"""The extension loaded the way docs/deployment.md says, with the scripts pyspark ships in its
bin/ folder: the spark-sql CLI and spark-submit, each given --jars and
--conf spark.sql.extensions=... (no configure() call anywhere)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import zipfile

import pytest

import sliding_window_agg as swa
from checkout import ROOT, fresh_main_jar
from deploy_util import SPARK_HOME, SPEC_ROWS, SPEC_SIZE, SPEC_SLIDING, SPEC_SQL, parse_rows, spark_env

pytestmark = pytest.mark.slow  # processes, servers or long runs: `make test` only

COMMON = ["--master", "local[1]", "--conf", "spark.ui.enabled=false",
          "--conf", "spark.ui.showConsoleProgress=false", "--conf", "spark.sql.shuffle.partitions=2",
          "--conf", "spark.sql.session.timeZone=UTC"]


def load_args(jar: str) -> list:
    return ["--jars", jar, "--conf", f"spark.sql.extensions={swa.EXTENSION_CLASS}"]


# Each row's trailing window of SPEC_SIZE over the contract's rows, prefixed so that its lines
# stand apart from the sliding windows'.
TRAILING_SQL = (
    "SELECT concat('TRAILING:', id), count(*) OVER w, concat_ws('', sort_array(collect_list(id) OVER w))"
    "  FROM VALUES " + ", ".join(f"('{i}', timestamp_micros({t}))" for i, t in SPEC_ROWS)
    + f"  AS events(id, ts) WINDOW w AS (ORDER BY ts RANGE BETWEEN INTERVAL '{SPEC_SIZE}' PRECEDING AND CURRENT ROW)"
    " ORDER BY 1"
)


@pytest.mark.every_spark
def test_spark_sql_cli_runs_the_spec_example(tmp_path):
    """The contract's example as sliding windows, and as trailing windows (EXPLAIN shows the
    TrailingWindow operator)."""
    jar = fresh_main_jar()
    # spark-sql keeps a Derby metastore and a warehouse in its working directory: a tmp one.
    result = subprocess.run(
        [os.path.join(SPARK_HOME, "bin", "spark-sql"), *load_args(jar), *COMMON, "-e",
         f"{SPEC_SQL}; {TRAILING_SQL}; EXPLAIN {TRAILING_SQL}"],
        cwd=tmp_path, env=spark_env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-5000:]
    assert parse_rows(result.stdout) == SPEC_SLIDING, result.stdout
    trailing = [line[len("TRAILING:"):].split("\t") for line in result.stdout.splitlines() if line.startswith("TRAILING:")]
    assert trailing == [["A", "1", "A"], ["B", "2", "AB"], ["C", "3", "ABC"], ["D", "2", "CD"], ["E", "2", "DE"]], result.stdout
    assert "TrailingWindow(" in result.stdout, result.stdout


APP = textwrap.dedent(
    """
    import sys
    from pyspark.sql import SparkSession, functions as F
    import sliding_window_agg as swa

    spark = SparkSession.builder.getOrCreate()  # --jars and --conf come from spark-submit
    print("PACKAGE", swa.__file__)
    print("LOADED", swa.is_loaded(spark))
    rows = [(i, t) for i, t in ROWS]
    df = spark.createDataFrame(rows, "id string, t long").withColumn("ts", F.timestamp_micros("t"))
    out = (df.groupBy(swa.sliding_window("ts", SIZE))
           .agg(F.count("*").alias("n"), F.concat_ws("", F.sort_array(F.collect_list("id"))).alias("ids"))
           .select(F.unix_micros("sliding_window.start").alias("s"),
                   F.unix_micros("sliding_window.end").alias("e"), "n", "ids")
           .orderBy("s"))
    for r in out.collect():
        print("ROW\\t" + "\\t".join(str(v) for v in r))
    for r in spark.sql(sys.argv[1]).collect():
        print("SQL\\t" + "\\t".join(str(v) for v in r))
    spark.stop()
    """
).replace("ROWS", repr(SPEC_ROWS)).replace("SIZE", repr(SPEC_SIZE))


def test_spark_submit_python_app_with_py_files(tmp_path):
    """A PySpark application submitted with the jar, the extension and the Python package as a
    --py-files zip (how to ship the package to a cluster without pip installing it)."""
    jar = fresh_main_jar()
    package = tmp_path / "sliding_window_agg.zip"
    source = os.path.join(ROOT, "python", "sliding_window_agg")
    with zipfile.ZipFile(package, "w") as z:
        for name in sorted(os.listdir(source)):
            if name.endswith(".py") or name == "VERSION":
                z.write(os.path.join(source, name), f"sliding_window_agg/{name}")
    app = tmp_path / "app.py"
    app.write_text(APP)
    result = subprocess.run(
        [os.path.join(SPARK_HOME, "bin", "spark-submit"), *load_args(jar), *COMMON,
         "--py-files", str(package), str(app), SPEC_SQL],
        cwd=tmp_path, env=spark_env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-5000:]
    lines = result.stdout.splitlines()
    assert f"PACKAGE {package}/sliding_window_agg/__init__.py" in lines, result.stdout
    assert "LOADED True" in lines
    assert parse_rows(result.stdout, "ROW\t") == SPEC_SLIDING, result.stdout
    assert parse_rows(result.stdout, "SQL\t") == SPEC_SLIDING, result.stdout


ERRORS_APP = textwrap.dedent(
    """
    from pyspark.sql import SparkSession
    import sliding_window_agg as swa

    try:  # spark-submit started the driver without --jars: too late to add the jar
        swa.configure(SparkSession.builder)
    except swa.ExtensionNotLoadedError as e:
        print("CONFIGURE_ERROR", e)
    spark = SparkSession.builder.getOrCreate()
    print("LOADED", swa.is_loaded(spark))
    try:  # spark.sql.extensions is set but its classes could not be loaded
        swa.sliding_window("ts", "1 second")
    except swa.ExtensionNotLoadedError as e:
        print("WINDOW_ERROR", e)
    spark.stop()
    """
)


def test_spark_submit_without_jars_says_to_pass_them(tmp_path):
    jar = fresh_main_jar()
    app = tmp_path / "app.py"
    app.write_text(ERRORS_APP)
    result = subprocess.run(
        [os.path.join(SPARK_HOME, "bin", "spark-submit"), *COMMON,
         "--conf", f"spark.sql.extensions={swa.EXTENSION_CLASS}", str(app)],
        cwd=tmp_path, env=spark_env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-5000:]
    lines = {line.split(" ", 1)[0]: line for line in result.stdout.splitlines()}
    how = f"--jars {jar} --conf spark.sql.extensions={swa.EXTENSION_CLASS}"
    assert "started before configure()" in lines["CONFIGURE_ERROR"] and how in lines["CONFIGURE_ERROR"]
    assert lines["LOADED"] == "LOADED False"
    assert "could not load its classes" in lines["WINDOW_ERROR"] and how in lines["WINDOW_ERROR"]
