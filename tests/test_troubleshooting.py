"""docs/troubleshooting.md quotes what users see for the mistakes a newcomer makes: each quoted
message (the last fenced block after a `<!-- message: NAME -->` marker) is produced again here
and compared with the page, `...` standing for any text (paths, ids), ids for any id, and line
breaks for spaces. The
page quotes Spark 4.3, whose versions and wording these tests expect; the behaviours themselves
are tested on every Spark by tests/test_errors.py and tests/test_streaming_modes.py.

Where Spark 3.5 shows another message, or shows it at another time, the page quotes that too,
after a marker `<!-- message: NAME (3.5) -->`. The tests marked `every_spark` run on Spark 3.5
as well (`python3 buildtools/spark_env.py 3.5 -- -m every_spark ...`): there each checks the
3.5 quote of its NAME where the page has one, else that the quote of 4.3 holds on 3.5 too."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time
import zipfile
from typing import Dict, List, Optional, Tuple

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import Window
from pyspark.sql import functions as F

import sliding_window_agg as swa
from checkout import ROOT
from deploy_util import relabelled_jar, started_with
from error_conditions import query_failure
from streaming_harness import session_conf, spark_version

PAGE = os.path.join(ROOT, "docs", "troubleshooting.md")
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
SQL = ("SELECT k, sliding_window(ts, '10 seconds') AS w, count(*) AS n FROM events "
       "GROUP BY k, sliding_window(ts, '10 seconds')")


@pytest.fixture(autouse=True)
def quoted_spark(request, spark):
    """Spark 4.3, or Spark 3.5 for the tests marked `every_spark`: the Sparks the page quotes."""
    quoted_here = [(4, 3), (3, 5)] if request.node.get_closest_marker("every_spark") else [(4, 3)]
    if spark_version(spark) not in quoted_here:
        pytest.skip(f"docs/troubleshooting.md quotes Spark 4.3 (and 3.5 where it differs), this is Spark {spark.version}")


def quoted() -> Dict[str, Tuple[Optional[str], str]]:
    """NAME -> (the code block before the message, or None; the message block)."""
    with open(PAGE, encoding="utf-8") as f:
        page = f.read()
    out = {}
    for name, blocks in re.findall(r"^ *<!-- message: ([a-z-]+(?: \(3\.5\))?) -->\n((?: *```[a-z]*\n.*?\n *```\n\n?)+)",
                                   page, flags=re.M | re.S):
        bodies = [textwrap.dedent(b) for b in re.findall(r"```[a-z]*\n(.*?)\n *```", blocks, flags=re.S)]
        out[name] = (bodies[0] if len(bodies) > 1 else None, bodies[-1])
    return out


def pattern(quote: str, numbers: bool = False) -> str:
    """A regex of a quoted line: `...` is any text, an id any id (with `numbers`, any number)."""
    tokens = r"(\.\.\.|" + UUID + (r"|\d+" if numbers else "") + ")"
    out = []
    for part in re.split(tokens, quote):
        if part == "...":
            out.append(".*?")
        elif re.fullmatch(UUID, part):
            out.append(UUID)
        elif numbers and part.isdigit():
            out.append(r"\d+")
        else:
            out.append(re.escape(part))
    return "".join(out)


def assert_quoted(name: str, actual: str, numbers: bool = False) -> None:
    """The message quoted for `name` is `actual`; the page wraps long lines (any run of white
    space is one space on both sides)."""
    message = quoted()[name][1]
    assert re.fullmatch(pattern(" ".join(message.split()), numbers), " ".join(actual.split()), flags=re.S), \
        f"docs/troubleshooting.md quotes for {name}:\n{message}\nbut the message is now:\n{actual}"


def assert_quoted_here(spark, name: str, actual: str) -> None:
    """assert_quoted; on Spark 3.5, of the quote `NAME (3.5)` where the page has one."""
    if spark_version(spark) == (3, 5) and f"{name} (3.5)" in quoted():
        name = f"{name} (3.5)"
    assert_quoted(name, actual)


def test_every_section_quotes_its_message():
    assert set(quoted()) == {
        "unresolved-routine", "extension-not-loaded", "version-mismatch", "other-scala",
        "other-minor", "no-jar-here", "watermark-other-column", "update-without-watermark", "stop-mid-batch",
        "pandas-udaf", "trailing-update-mode", "trailing-update-mode (3.5)", "trailing-no-watermark",
        "trailing-no-watermark (3.5)", "trailing-timestamp-ntz", "trailing-not-trailing", "idle-timeout-invalid",
        "idle-timeout-invalid (3.5)"}
    assert quoted()["unresolved-routine"][0] == SQL


def run_script(script: str, jar: Optional[str]) -> Tuple[dict, str]:
    """Runs `script` in a Python process of its own (a JVM of its own: the extension is a static
    setting), with `jar` and the extension given to Spark; its JSON result, and its stderr."""
    preamble = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {os.path.join(ROOT, "python")!r})
        from pyspark.sql import SparkSession
        import sliding_window_agg as swa
        builder = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
        jar = {jar!r}
        if jar:
            builder = builder.config("spark.jars", jar).config("spark.sql.extensions", swa.EXTENSION_CLASS)
        spark = builder.getOrCreate()
        out = {{}}
    """)
    done = "\nspark.stop()\nprint('RESULT ' + json.dumps(out))\n"
    result = subprocess.run([sys.executable, "-c", preamble + textwrap.dedent(script) + done],
                            capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYSPARK_PYTHON": sys.executable})
    lines = [line for line in result.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, result.stdout + result.stderr
    return json.loads(lines[0][len("RESULT "):]), result.stderr


def other_jar(minor: str) -> Optional[str]:
    try:
        return swa.jar_path(minor)
    except (FileNotFoundError, RuntimeError):
        return None


ERRORS_OF_A_SESSION = f"""
    spark.sparkContext.setLogLevel("OFF")
    spark.range(3).selectExpr("id AS k", "timestamp_seconds(id) AS ts").createOrReplaceTempView("events")
    try:
        spark.sql({SQL!r}).collect()
    except Exception as e:
        out["sql"] = str(e).splitlines()[0]
    try:
        swa.sliding_window("ts", "10 seconds")
    except Exception as e:
        out["python"] = f"{{type(e).__module__}}.{{type(e).__name__}}: {{e}}"
"""


@pytest.mark.slow
def test_extension_not_loaded_in_sql_and_python():
    """A session started without the extension."""
    out, _ = run_script(ERRORS_OF_A_SESSION, None)
    assert_quoted("unresolved-routine", out["sql"])
    assert_quoted("extension-not-loaded", out["python"])


@pytest.mark.slow
@pytest.mark.other_sparks_jars
def test_jar_of_spark_3_5_on_spark_4():
    """The jar of Spark 3.5 (Scala 2.12) given to Spark 4.3: Spark logs that it cannot load the
    extension, and starts without it. `make test` runs it last, once its run on Spark 3.5 has
    built that jar (SWA_OTHER_SPARKS_JARS says so: then a missing jar fails the test)."""
    jar = other_jar("3.5")
    if jar is None:
        if os.environ.get("SWA_OTHER_SPARKS_JARS") == "built":
            pytest.fail("make test built the jar of Spark 3.5, but the package does not find it")
        pytest.skip("no jar of Spark 3.5 here (`python -m sliding_window_agg jar --spark-jars ...`)")
    out, stderr = run_script(ERRORS_OF_A_SESSION, jar)
    lines = stderr.splitlines()
    at = [i for i, line in enumerate(lines) if "WARN SparkSession: Cannot use" in line]
    assert at, stderr
    warning = lines[at[0]]
    assert_quoted("other-scala", warning[warning.index("WARN "):] + "\n" + lines[at[0] + 1])
    assert_quoted("unresolved-routine", out["sql"])
    assert "spark.sql.extensions names it, but the driver could not load its classes" in out["python"]


@pytest.mark.slow
def test_jar_of_another_spark_4_minor_version(tmp_path):
    """A jar that records Spark 4.0.5, given with --jars to Spark 4.3: the session does not start."""
    out = started_with(relabelled_jar(tmp_path, "4.0.5"))
    line = next(line for line in out.splitlines() if "[WINDOW_JAR_FOR_ANOTHER_SPARK]" in line)
    assert_quoted("other-minor", line.lstrip(": "))


def test_no_jar_for_a_spark_that_is_not_here(tmp_path):
    """`python -m sliding_window_agg jar --spark 3.5` where the only Spark is 4.3 and no jar of
    3.5 is carried or built."""
    env = {**os.environ, "SLIDING_WINDOW_AGG_CACHE": str(tmp_path / "cache")}
    probe = ("import sys; from sliding_window_agg import _jar, __main__ as m; "
             "_jar.JARS_DIR = sys.argv[1]; sys.exit(m.main(['jar', '--spark', '3.5']))")
    result = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "no-jars")], capture_output=True,
                            text=True, timeout=300, env=env)
    assert result.returncode == 1 and result.stdout == ""
    assert_quoted("no-jar-here", result.stderr.strip())


@pytest.mark.slow
def test_version_mismatch(tmp_path):
    """A jar that records Spark 4.0.5, checked against the running Spark 4.3."""
    jar = str(tmp_path / "sliding-window-agg_4.0_2.13.jar")
    from sliding_window_agg._jar import BUILD_INFO_ENTRY

    with zipfile.ZipFile(jar, "w") as z:
        z.writestr(BUILD_INFO_ENTRY, "spark.version=4.0.5\n")
    with pytest.raises(swa.SparkVersionMismatchError) as e:
        swa.check_spark_version(jar=jar)
    assert_quoted("version-mismatch", f"{type(e.value).__module__}.{type(e.value).__name__}: {e.value}")


def file_stream(spark, folder, rows: List[Tuple[str, int]]):
    """A stream of k and ts (and other, a copy of ts) from one JSON file of (key, second)."""
    os.makedirs(folder)
    with open(os.path.join(folder, "0.json"), "w") as f:
        f.writelines(json.dumps({"k": k, "t": t}) + "\n" for k, t in rows)
    return (spark.readStream.schema("k string, t long").json(folder)
            .withColumn("ts", F.timestamp_seconds("t")).withColumn("other", F.col("ts")))


def test_watermark_on_another_column(spark, tmp_path):
    events = file_stream(spark, str(tmp_path / "in"), [("a", 10)])
    with pytest.raises(AnalysisException) as e:
        (events.withWatermark("other", "5 seconds")
            .groupBy("k", swa.sliding_window("ts", "10 seconds")).count()
            .writeStream.format("noop").outputMode("append").start())
    assert_quoted("watermark-other-column", str(e.value))


def capture(spark, logger: str):
    return spark._jvm.org.apache.spark.sql.slidingwindow.LogCapture.of(logger)


def test_update_mode_without_watermark(spark, tmp_path):
    logs = capture(spark, "org.apache.spark.sql.slidingwindow.planning.StreamingQueryLog")
    try:
        events = file_stream(spark, str(tmp_path / "in"), [("a", 10), ("a", 14)])
        query = (events.groupBy("k", swa.sliding_window("ts", "10 seconds")).count()
                 .writeStream.format("noop").outputMode("update")
                 .option("checkpointLocation", str(tmp_path / "checkpoint")).trigger(availableNow=True).start())
        query.awaitTermination()
        warnings = [line for line in logs.lines() if "grows without bound" in line]
    finally:
        logs.close()
    assert len(warnings) == 1
    assert_quoted("update-without-watermark", warnings[0].replace("WARN ", "WARN StreamingQueryLog: ", 1))


def test_stop_in_the_middle_of_a_micro_batch(spark, tmp_path):
    """query.stop() while the micro-batch's job runs (each row sleeps in the executor): Spark
    logs the ERROR and WARNs the page quotes, the query ends without an exception, and the query
    restarted from its checkpoint writes the windows an uninterrupted run writes."""
    rows = [("a", t) for t in range(30)]
    loggers = {"FileFormatWriter": "org.apache.spark.sql.execution.datasources.FileFormatWriter",
               "TaskSetManager": "org.apache.spark.scheduler.TaskSetManager"}

    for name in ("stopped", "uninterrupted"):
        file_stream(spark, str(tmp_path / f"in-{name}"), rows)

    def start(name, slow):
        stream = (spark.readStream.schema("k string, t long").json(str(tmp_path / f"in-{name}"))
                  .withColumn("ts", F.timestamp_seconds("t")))
        if slow:
            # Thread.sleep returns nothing: a null, kept by the filter, which evaluates it.
            stream = stream.where(F.expr("reflect('java.lang.Thread', 'sleep', CAST(300 AS BIGINT))").isNull())
        return (stream.withWatermark("ts", "5 seconds")
                .groupBy("k", swa.sliding_window("ts", "10 seconds")).agg(F.count("*").alias("n"))
                .writeStream.format("parquet").outputMode("append")
                .option("path", str(tmp_path / f"out-{name}"))
                .option("checkpointLocation", str(tmp_path / f"checkpoint-{name}")))

    def windows(name):
        return sorted((r.sliding_window.start, r.sliding_window.end, r.n)
                      for r in spark.read.parquet(str(tmp_path / f"out-{name}")).collect())

    captures = {short: capture(spark, name) for short, name in loggers.items()}
    try:
        query = start("stopped", slow=True).start()
        tracker = spark.sparkContext.statusTracker()
        deadline = time.time() + 120
        while not tracker.getActiveJobsIds() and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(1)  # inside the job, whose first stage takes 30 x 300 ms
        query.stop()
        assert query.exception() is None
        logged = {short: (list(c.lines()), list(c.thrown())) for short, c in captures.items()}
    finally:
        for c in captures.values():
            c.close()

    quote = quoted()["stop-mid-batch"][1].splitlines()
    error = [line for line in quote if line.startswith("ERROR ")][0]
    assert any(re.fullmatch(pattern(error, numbers=True), "ERROR FileFormatWriter: " + line[len("ERROR "):])
               for line in logged["FileFormatWriter"][0] if line.startswith("ERROR ")), logged
    # java.lang.InterruptedException, or the job's cancellation when it reached the thread first,
    # as the page says under the quote.
    cancelled = "org.apache.spark.SparkException: [SPARK_JOB_CANCELLED]"
    with open(PAGE) as f:
        assert cancelled in " ".join(f.read().split())
    assert {quote[quote.index(error) + 1], cancelled.split(":")[0]} & set(logged["FileFormatWriter"][1]), logged
    warning = [line for line in quote if line.startswith("WARN ")][0]
    assert any(re.fullmatch(pattern(warning, numbers=True), "WARN TaskSetManager: " + line[len("WARN "):])
               for line in logged["TaskSetManager"][0] if line.startswith("WARN ")), logged

    restarted = start("stopped", slow=False).trigger(availableNow=True).start()
    restarted.awaitTermination()
    uninterrupted = start("uninterrupted", slow=False).trigger(availableNow=True).start()
    uninterrupted.awaitTermination()
    assert windows("stopped") == windows("uninterrupted") != []


def test_pandas_udaf(spark):
    pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    from pyspark.sql.functions import pandas_udf

    def mean(v):  # type: ignore[no-untyped-def]
        return float(v.mean())

    mean.__annotations__ = {"v": pd.Series, "return": float}
    mean.__name__ = "mean_udf"
    mean_udf = pandas_udf(mean, "double")
    events = spark.createDataFrame([("a", 10, 1.0)], "k string, t long, v double").withColumn(
        "ts", F.timestamp_seconds("t"))
    with pytest.raises(AnalysisException) as e:
        events.groupBy("k", swa.sliding_window("ts", "10 seconds")).agg(mean_udf("v"))
    assert_quoted("pandas-udaf", str(e.value))


# Trailing windows on a stream (docs/trailing-windows.md). Spark 4 refuses a query when it starts,
# Spark 3.5 (no hint resolution rules) when its first micro-batch is planned: the query fails then.
LAST_10M = ("k", "ts", "10 minutes")


def at_start(spark) -> bool:
    """Whether trailing windows' errors come from start() on this Spark (4.0 and later)."""
    return spark_version(spark) >= (4, 0)


@pytest.mark.every_spark
def test_trailing_update_mode(spark, tmp_path):
    events = file_stream(spark, str(tmp_path / "in"), [("a", 10)])
    last_10m = swa.trailing_window(*LAST_10M)
    e, raised_at_start = query_failure(events.withWatermark("ts", "5 seconds")
                                       .select("k", "ts", F.count("*").over(last_10m).alias("n_10m"))
                                       .writeStream.format("noop").outputMode("update")
                                       .option("checkpointLocation", str(tmp_path / "checkpoint")))
    assert raised_at_start == at_start(spark), e
    assert_quoted_here(spark, "trailing-update-mode", str(e))


@pytest.mark.every_spark
def test_trailing_without_a_watermark(spark, tmp_path):
    """No watermark; then one on another column, which the page says the message names."""
    events = file_stream(spark, str(tmp_path / "in"), [("a", 10)])
    last_10m = swa.trailing_window(*LAST_10M)
    for name, stream in [("none", events), ("other", events.withWatermark("other", "5 seconds"))]:
        e, raised_at_start = query_failure(stream.select("k", "ts", F.count("*").over(last_10m).alias("n_10m"))
                                           .writeStream.format("noop").outputMode("append")
                                           .option("checkpointLocation", str(tmp_path / f"checkpoint-{name}")))
        assert raised_at_start == at_start(spark), e
        if name == "none":
            assert_quoted_here(spark, "trailing-no-watermark", str(e))
    other = "(the query has one on other, which does not order its windows)"
    with open(PAGE) as f:
        assert other in " ".join(f.read().split())
    assert other in str(e), str(e)


@pytest.mark.every_spark
def test_trailing_on_a_timestamp_ntz_column(spark, tmp_path):
    """Refused when the query is defined, on every Spark."""
    events = file_stream(spark, str(tmp_path / "in"), [("a", 10)]).withColumn("ts", F.col("ts").cast("timestamp_ntz"))
    with pytest.raises(AnalysisException) as e:
        events.select("k", "ts", F.expr("count(*) OVER (PARTITION BY k ORDER BY ts "
                                         "RANGE BETWEEN INTERVAL 10 MINUTES PRECEDING AND CURRENT ROW)").alias("n_10m"))
    assert_quoted_here(spark, "trailing-timestamp-ntz", str(e.value))


@pytest.mark.every_spark
def test_row_number_on_a_stream(spark, tmp_path):
    """Refused when the query is defined, on every Spark."""
    events = file_stream(spark, str(tmp_path / "in"), [("a", 10)])
    with pytest.raises(AnalysisException) as e:
        events.withWatermark("ts", "5 seconds").select(
            "k", "ts", F.row_number().over(Window.partitionBy("k").orderBy("ts")).alias("n"))
    assert_quoted_here(spark, "trailing-not-trailing", str(e.value))


@pytest.mark.every_spark
def test_idle_timeout_without_a_unit(spark, tmp_path):
    """Refused when the first micro-batch is planned, on every Spark."""
    events = file_stream(spark, str(tmp_path / "in"), [("a", 10)])
    with session_conf(spark, "spark.sql.slidingWindow.idleTimeout", "300"):
        e, raised_at_start = query_failure(events.withWatermark("ts", "5 seconds")
                                           .groupBy("k", swa.sliding_window("ts", "10 seconds")).count()
                                           .writeStream.format("noop").outputMode("append")
                                           .option("checkpointLocation", str(tmp_path / "checkpoint")))
    assert not raised_at_start, e
    assert_quoted_here(spark, "idle-timeout-invalid", str(e))
