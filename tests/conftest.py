"""One real local Spark session for the whole run, with the extension loaded the way users load
it (sliding_window_agg.configure) plus the test jar (test-only Scala UDAFs)."""
from __future__ import annotations

import os
import sys

import pytest

# The modules the tests share (tests/support/: harnesses, references, the scripts run as
# subprocesses) are imported by their names, as those scripts import each other.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))

from checkout import fresh_main_jar  # noqa: E402  (puts the checkout on sys.path too)

from buildtools import class_data_sharing, scala_build  # noqa: E402

import sliding_window_agg as swa  # noqa: E402

def every_spark_run(config) -> bool:
    """`-m every_spark`: the run `make test` makes on each of the other Sparks."""
    return "every_spark" in (config.getoption("markexpr") or "")


def pytest_configure(config):
    """Every JVM of the tests that spark-submit starts (each worker's session, the children's,
    spark-sql, Connect servers, pipelines) compiles with C1 only: a test's short queries never
    repay C2's compiles, which on two cores compete with the tests (the shared sessions' tests run
    1.5 times faster without them). And each maps Spark's classes from a class data sharing archive
    instead of loading them, which takes 40% off the CPU of a session's start
    (buildtools/class_data_sharing.py; docs/development.md, "Test tiers"), in every run but the
    `every_spark` ones: their ten or so JVMs save less CPU than making the archive takes (17 and
    34 s on Spark 4.0). pytest-xdist's workers inherit the options."""
    current = os.environ.get("SPARK_SUBMIT_OPTS", "")
    if scala_build.TEST_JVM_OPTIONS in current.split():
        return
    options = (scala_build.TEST_JVM_OPTIONS if every_spark_run(config)
               else class_data_sharing.jvm_options(scala_build.TEST_JVM_OPTIONS, scala_build.spark_jars_dir()))
    os.environ["SPARK_SUBMIT_OPTS"] = f"{current} {options}".strip()


def pytest_collection_modifyitems(config, items):
    """The longest tests first: pytest-xdist hands out tests in this order, so the short ones fill
    the end of each worker's run instead of one long test running alone there (stable: a module's
    tests keep their order).

    `-m every_spark` (the tests `make test` runs on every supported Spark) takes, of each marked
    test, its first parameter set that is not itself marked slow, with both state store providers
    where the test has the `provider` fixture: every behaviour once per Spark, in minutes. A test
    of an every_spark module marked slow on its own (it starts a JVM of its own) runs on the
    default Spark only, unless it is marked every_spark itself."""
    if every_spark_run(config):
        first, kept = {}, []
        for item in items:
            spec = getattr(item, "callspec", None)
            if spec and any(m.name == "slow" for m in spec.marks):
                continue
            own = {m.name for m in item.own_markers}
            if "slow" in own and "every_spark" not in own:
                continue
            params = tuple(sorted((k, repr(v)) for k, v in (spec.params if spec else {}).items() if k != "provider"))
            if first.setdefault(item.function, params) == params:
                kept.append(item)
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = kept
    items.sort(key=lambda item: 0 if item.path.name == "test_scala_unit.py" else 1 if item.get_closest_marker("slow") else 2)


@pytest.fixture(scope="session")
def test_jar() -> str:
    return scala_build.build_test_jar(fresh_main_jar(), scala_build.test_jar())


@pytest.fixture(scope="session")
def spark(test_jar):
    from pyspark.sql import SparkSession
    from streaming_harness import VERIFY_ROW_COUNT_CONF

    builder = (
        SparkSession.builder.master("local[2]")
        .appName("sliding-window-agg tests")
        .config("spark.jars", test_jar)
        # Two shuffle partitions, two state stores per stateful micro-batch (one per core; every
        # group spread over both, an empty one where a test has one group): 4 cost the streaming
        # tests a sixth more CPU for no case that 2 do not reach.
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "2g")
        # Every micro-batch of every test checks the operator's count of its state rows against
        # the provider's (RocksDB's own count is off outside the tests: docs/architecture.md).
        .config(VERIFY_ROW_COUNT_CONF, "true")
    )
    session = swa.configure(builder).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    session._jvm.org.apache.spark.sql.slidingwindow.TestAggregators.register(session._jsparkSession)
    yield session
    session.stop()


@pytest.fixture
def rocksdb(spark):
    """The test's streaming queries keep their state in RocksDB."""
    from streaming_harness import ROCKSDB, state_store

    with state_store(spark, ROCKSDB):
        yield


@pytest.fixture(params=["rocksdb", "default"])
def provider(request, spark):
    """Runs the test once on each state store provider (RocksDB, with the time index, and Spark's
    default HDFS-backed one, which scans); the provider's class name is the fixture's value."""
    from streaming_harness import HDFS, ROCKSDB, state_store

    name = {"rocksdb": ROCKSDB, "default": HDFS}[request.param]
    with state_store(spark, name):
        yield name
