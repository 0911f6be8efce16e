"""The tests' JVMs map Spark's classes from a class data sharing archive instead of loading them
(buildtools/class_data_sharing.py, docs/development.md "Test tiers"): one archive per JDK, Spark
jars and JVM options, made once, and a JVM that cannot use it starts without it. The `every_spark`
runs on the other Sparks start too few JVMs to repay one, and have none (tests/conftest.py);
`make test SPARK=4.1` has one."""
from __future__ import annotations

import os
import subprocess

import pyspark
import pytest

from buildtools import class_data_sharing, scala_build


def test_a_jvm_that_spark_submit_starts_maps_sparks_classes_from_the_archive():
    options = os.environ["SPARK_SUBMIT_OPTS"]  # what tests/conftest.py gives every spark-submit
    assert "-XX:SharedArchiveFile=" in options, options
    # -Xshare:on: a JVM that cannot map the archive stops instead of starting without it.
    env = dict(os.environ, SPARK_SUBMIT_OPTS=options.replace(class_data_sharing.QUIET, "")
               + " -Xshare:on -Xlog:class+load=info")
    submit = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-submit")
    run = subprocess.run([submit, "--version"], env=env, capture_output=True, text=True, timeout=120)
    out = run.stdout + run.stderr
    assert run.returncode == 0 and "Unable to use shared archive" not in out, out[-3000:]
    mapped = [line for line in out.splitlines() if "source: shared objects file (top)" in line]
    # spark-submit's own start: about 2,000 classes of Spark, Scala and their libraries.
    assert len(mapped) > 1000 and sum(" org.apache.spark." in line for line in mapped) > 50, out[-3000:]


def test_the_archive_is_named_by_the_jdk_the_spark_jars_and_the_options(tmp_path):
    jars = tmp_path / "jars"
    jars.mkdir()
    (jars / "spark-core_2.13-4.3.0.jar").write_bytes(b"x" * 10)
    first = class_data_sharing._digest(str(jars), scala_build.TEST_JVM_OPTIONS)
    assert class_data_sharing._digest(str(jars), scala_build.TEST_JVM_OPTIONS) == first
    assert class_data_sharing._digest(str(jars), "-Xint") != first
    (jars / "spark-core_2.13-4.3.0.jar").write_bytes(b"x" * 11)
    assert class_data_sharing._digest(str(jars), scala_build.TEST_JVM_OPTIONS) != first


def test_a_failed_archive_is_reported_once_and_the_jvms_start_without_one(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(class_data_sharing, "ARCHIVES", str(tmp_path))
    jars = scala_build.spark_jars_dir()
    failing = "/bin/false"  # the workload's interpreter exits at once: no archive
    assert class_data_sharing.jvm_options("-Xint", jars, failing) == "-Xint"
    assert "JVMs start without one" in capsys.readouterr().err
    assert [p.suffix for p in tmp_path.glob("*.jsa*")] == [".failed"]
    # Not tried again until what it depends on changes.
    assert class_data_sharing.jvm_options("-Xint", jars, failing) == "-Xint"
    assert capsys.readouterr().err == ""
