"""A class data sharing archive of a Spark's classes, for the tests' JVMs (JDK AppCDS).

A JVM that starts Spark loads about 15,000 classes from Spark's jars: reading, verifying and
linking them is most of the CPU of a session's start, and the suite starts dozens of JVMs (each
worker's session, the children's, `spark-sql`, Connect servers, pipelines, the Scala suites' JVM). A
dynamic archive (`-XX:ArchiveClassesAtExit`) keeps those classes as the JVM laid them out in
memory; a JVM started with `-XX:SharedArchiveFile` maps them instead of loading them, and takes
about 40% less CPU to start a session and run its first queries.

The archive is made once per machine and Spark release, by a plain Spark workload (batch
aggregation, a window function, streaming aggregations over both state store providers) in a
JVM of its own, under `build/class-archives/`, named by the digest of what it depends on: the
JDK, the Spark jars and the JVM options. Classes of the extension are loaded by Spark's own
class loader (`spark.jars`) and are not archived: a rebuilt jar changes nothing here.

A JVM uses the archive only while its class path starts with the one the archive was made with
(the one spark-submit gives a driver): every JVM that spark-submit starts, not the Scala suites'
JVM (whose time is the suites' work, not their start). Where a JVM cannot use it (another JDK, a
changed jar), it starts without it, as fast as before: `-Xlog:cds*=off` keeps its warning out
of the output the tests read.
"""
from __future__ import annotations

import glob
import hashlib
import os
import subprocess
import sys

from buildtools.scala_build import exclusive, jar_build

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARCHIVES = os.path.join(ROOT, "build", "class-archives")
QUIET = "-Xlog:cds*=off"

# What the archive's JVM runs: the Spark classes every test session needs (SQL, codegen,
# aggregation, window functions, Structured Streaming, checkpoints, both state stores).
WORKLOAD = r"""
import sys, tempfile
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[2]").appName("class data sharing archive")
         .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate())
rows = spark.range(2000).selectExpr("id % 7 AS k", "timestamp_seconds(id) AS ts", "id AS v")
rows.groupBy("k").agg({"v": "sum", "ts": "max"}).collect()
rows.createOrReplaceTempView("t")
spark.sql("SELECT k, count(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL 5 SECONDS "
          "PRECEDING AND CURRENT ROW) FROM t").collect()
for provider in ("org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
                 "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"):
    spark.conf.set("spark.sql.streaming.stateStore.providerClass", provider)
    query = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 100).load()
             .selectExpr("value % 3 AS k", "timestamp AS ts").withWatermark("ts", "1 second")
             .groupBy("k", "ts").count()
             .writeStream.format("memory").queryName("archive").outputMode("append")
             .option("checkpointLocation", tempfile.mkdtemp()).trigger(availableNow=True).start())
    query.awaitTermination()
    spark.sql("SELECT count(*) FROM archive").collect()
spark.stop()
"""


def _digest(jars: str, jvm_options: str) -> str:
    """What the archive depends on: the JDK (its `-version` and files), each Spark jar's name and
    size, the JVM options and this file."""
    h = hashlib.sha256()
    java = os.path.realpath(jar_build.java())
    version = subprocess.run([java, "-Xshare:auto", "-version"], capture_output=True, text=True).stderr
    h.update(f"{java}\n{version}\n{jvm_options}\n".encode())
    modules = os.path.join(os.path.dirname(os.path.dirname(java)), "lib", "modules")
    if os.path.exists(modules):
        h.update(str(os.path.getsize(modules)).encode())
    for jar in sorted(os.listdir(jars)):
        h.update(f"{jar} {os.path.getsize(os.path.join(jars, jar))}\n".encode())
    with open(os.path.abspath(__file__), "rb") as f:
        h.update(f.read())
    return h.hexdigest()[:16]


def archive(jvm_options: str, jars: str, python: str = sys.executable) -> str | None:
    """The archive of the Spark whose jars are in ``jars``, for JVMs started with ``jvm_options``,
    made now (with ``python``, whose pyspark those jars are) unless it is there; None if this JDK
    could not make one."""
    minor = jar_build.spark_version(jars)
    path = os.path.join(ARCHIVES, f"spark-{minor}-{_digest(jars, jvm_options)}.jsa")
    if os.path.exists(path):
        return path
    with exclusive(os.path.join(ARCHIVES, f"spark-{minor}")):  # one at a time for each Spark
        if os.path.exists(path):
            return path
        for old in glob.glob(os.path.join(ARCHIVES, f"spark-{minor}-*")):
            if not old.startswith(path):
                os.remove(old)
        partial = path + ".partial"
        failed = path + ".failed"
        if os.path.exists(failed):
            return None
        env = dict(os.environ, SPARK_SUBMIT_OPTS=f"{jvm_options} -XX:ArchiveClassesAtExit={partial} {QUIET}")
        made = subprocess.run([python, "-c", WORKLOAD], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        if made.returncode != 0 or not os.path.exists(partial):
            with open(failed, "w") as f:  # not tried again until what it depends on changes
                f.write(made.stderr[-5000:])
            sys.stderr.write(f"no class data sharing archive for Spark {minor}, JVMs start without one: {failed}\n")
            return None
        os.replace(partial, path)
        return path


def jvm_options(jvm_options: str, jars: str, python: str = sys.executable) -> str:
    """``jvm_options`` with the archive's, when there is one."""
    path = archive(jvm_options, jars, python)
    return f"{jvm_options} -XX:SharedArchiveFile={path} {QUIET}" if path else jvm_options
