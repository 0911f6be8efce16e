"""The Scala core's ScalaTest suites (scala/src/test), run by the sbt build (build.sbt, through
buildtools/sbt.py: sbt installed from the machine's Maven repository and resolving from it alone)
against the running pyspark's jars; and the jar that build packages is the one the Python package
builds: the same entries and the same Spark recorded in it."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile

import pyspark
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from buildtools import sbt, scala_build  # noqa: E402

# On every Spark: the operator harness runs the operators over that Spark's own state stores. The
# other Sparks run 4 of its random streams per test, which reach every call of their stores, and a
# quarter of the other randomized suites' cases (PropertyCases.scala), which reach that Spark's
# expressions and codegen; the default one runs them all, or as many streams as
# SWA_HARNESS_STREAMS says (`make test-fast`: 8).
OTHER_SPARKS_HARNESS = {"swa.harness.streams": "4", "swa.properties.scale": "0.25"}

PROPERTIES = "sliding-window-agg.properties"
# The suites on Spark's own test kits (StreamTest), compiled with -Decosystem only.
ECOSYSTEM_TESTS = os.path.join(ROOT, "scala", "src", "ecosystem-test")


def harness_properties() -> dict | None:
    if not scala_build.is_default_spark():
        return OTHER_SPARKS_HARNESS
    streams = os.environ.get("SWA_HARNESS_STREAMS")
    return {"swa.harness.streams": streams} if streams else None


def sbt_arguments(minor: str, jars: str) -> list[str]:
    """One sbt run for this Spark (with Spark's test kits where the Maven repository serves them:
    the suites that use them run too): its jar, then every suite, with the harness properties."""
    return [*sbt.spark_arguments(minor, jars), *[f"-D{k}={v}" for k, v in (harness_properties() or {}).items()],
            "package", "test"]


def suite_sources(minor: str) -> list[str]:
    """The *Suite.scala files compiled for this Spark: the test tree and its test shims, and where
    Spark's test kits are served, the StreamTest suites and their shims."""
    folders = [scala_build.TEST_SOURCES, *scala_build.jar_build.shim_folders(minor, scala_build.TEST_SHIM_SOURCES)]
    if minor in sbt.ECOSYSTEM_SPARKS:
        folders += [os.path.join(ECOSYSTEM_TESTS, "scala"),
                    *scala_build.jar_build.shim_folders(minor, os.path.join(ECOSYSTEM_TESTS, "scala-shims"))]
    return sorted(os.path.join(d, f) for folder in folders for d, _, fs in os.walk(folder)
                  for f in fs if f.endswith("Suite.scala"))


def summary(output: str) -> dict:
    """ScalaTest's summary of the run (the last one sbt printed): suites completed and aborted,
    tests succeeded, failed, canceled."""
    found = {}
    for key, pattern in [("suites", r"Suites: completed (\d+), aborted (\d+)"),
                         ("tests", r"Tests: succeeded (\d+), failed (\d+), canceled (\d+)")]:
        matches = re.findall(pattern, output)
        found[key] = tuple(int(n) for n in matches[-1]) if matches else None
    return found


def failures(output: str) -> str:
    """The first failed tests, each with its suite, its name and what follows it (the message,
    where), for the assertion."""
    lines = output.splitlines()
    marks = [i for i, line in enumerate(lines) if "*** FAILED ***" in line or "*** ABORTED ***" in line]
    suite = lambda i: next((lines[j] for j in range(i, -1, -1) if re.fullmatch(r"\[info\] \w+:", lines[j])), "")
    return "\n".join("\n".join([suite(i), *lines[i:i + 12]]) for i in marks[:5]) or output[-6000:]


def entries(jar: str) -> dict:
    """The jar's files (no folders), and its properties entry."""
    with zipfile.ZipFile(jar) as z:
        names = sorted(n for n in z.namelist() if not n.endswith("/") and not n.startswith("META-INF/"))
        return {"names": names, "properties": z.read(PROPERTIES).decode("utf-8")}


@pytest.mark.every_spark
def test_scala_suites_pass_and_sbt_builds_the_packages_jar():
    package_jar = scala_build.build_main_jar()
    minor = scala_build.spark_minor()
    result = sbt.run(sbt_arguments(minor, scala_build.spark_jars_dir()),
                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800)
    output = result.stdout
    print(output)  # shown by pytest when the test fails
    found = summary(output)
    assert result.returncode == 0 and found["tests"] and found["tests"][1] == 0, failures(output)

    sources = suite_sources(minor)
    with_tests = sum(open(f, encoding="utf-8").read().count('test("') for f in sources)
    (completed, aborted), (succeeded, failed, _) = found["suites"], found["tests"]
    assert (aborted, failed) == (0, 0), failures(output)
    # Every suite ran (the harness suites of WindowedAggregateProperties have no test( of their own).
    assert completed >= len(sources), (completed, [os.path.basename(f) for f in sources])
    assert succeeded >= with_tests, (succeeded, with_tests)

    sbt_jar = os.path.join(ROOT, "target", os.path.basename(package_jar))
    assert os.path.exists(sbt_jar), sbt_jar
    built, packaged = entries(sbt_jar), entries(package_jar)
    assert built["names"] == packaged["names"], sorted(set(built["names"]) ^ set(packaged["names"]))[:20]
    assert f"spark.version={pyspark.__version__}" in built["properties"], built["properties"]
    assert built["properties"] == packaged["properties"]
