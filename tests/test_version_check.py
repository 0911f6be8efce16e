"""configure() checks that the bundled jar was built for the Spark it will run on: a different
major.minor version is a clear error, a different patch release a warning."""
from __future__ import annotations

import warnings
import zipfile

import pytest
from pyspark.sql import SparkSession

import sliding_window_agg as swa
from buildtools import scala_build
from deploy_util import relabelled_jar, started_with
from sliding_window_agg import _configure, _jar, _jar_cache, _spark_version


def jar_built_for(tmp_path, version):
    """A stand-in for the bundled jar that records ``version`` (None: no record at all)."""
    jar = tmp_path / f"built-for-{version}.jar"
    with zipfile.ZipFile(jar, "w") as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
        if version is not None:
            z.writestr("sliding-window-agg.properties", f"spark.version={version}\n")
    return str(jar)


@pytest.fixture
def running(monkeypatch):
    """Sets the version of the Spark configure() sees as the one pyspark will start."""
    def set_version(version):
        monkeypatch.setattr(_spark_version, "running_spark_version", lambda: (version, "the Spark in /opt/x"))
    return set_version


def test_bundled_jar_records_the_spark_it_was_compiled_against():
    assert _jar.built_for_spark_version() == scala_build.spark_version()
    assert _spark_version.running_spark_version()[0] == scala_build.spark_version()


def test_configure_accepts_the_bundled_jar_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        builder = swa.configure(SparkSession.Builder())
    assert swa.jar_path() in builder._options["spark.jars"]


def test_other_minor_version_is_a_clear_error(tmp_path, monkeypatch, running):
    jar = jar_built_for(tmp_path, "4.2.1")
    monkeypatch.setattr(_configure, "jar_path", lambda: jar)
    running("4.3.0")
    builder = SparkSession.Builder()
    with pytest.raises(swa.SparkVersionMismatchError) as e:
        swa.configure(builder)
    message = str(e.value)
    assert f"jar ({jar}) was built for Spark 4.2.1" in message
    assert "the Spark in /opt/x is version 4.3.0" in message
    assert "only works with Spark 4.2.x" in message
    assert "pip install 'pyspark==4.2.1'" in message
    assert "check_version=False" in message
    assert isinstance(e.value, RuntimeError)
    assert "spark.jars" not in builder._options  # nothing half-configured


def test_other_major_version_is_an_error(tmp_path, monkeypatch, running):
    monkeypatch.setattr(_configure, "jar_path", lambda: jar_built_for(tmp_path, "4.3.0"))
    running("5.3.0")
    with pytest.raises(swa.SparkVersionMismatchError, match=r"built for Spark 4\.3\.0.*version 5\.3\.0"):
        swa.configure(SparkSession.Builder())


def test_other_patch_release_is_a_warning(tmp_path, monkeypatch, running):
    jar = jar_built_for(tmp_path, "4.3.0")
    monkeypatch.setattr(_configure, "jar_path", lambda: jar)
    running("4.3.2")
    with pytest.warns(swa.SparkVersionWarning, match=r"built for Spark 4\.3\.0 .* version 4\.3\.2"):
        builder = swa.configure(SparkSession.Builder())
    assert builder._options["spark.jars"] == jar


def test_check_can_be_skipped(tmp_path, monkeypatch, running):
    jar = jar_built_for(tmp_path, "3.5.1")
    monkeypatch.setattr(_configure, "jar_path", lambda: jar)
    running("4.3.0")
    builder = swa.configure(SparkSession.Builder(), check_version=False)
    assert builder._options["spark.jars"] == jar


def test_jar_without_a_record_is_accepted(tmp_path, monkeypatch, running):
    jar = jar_built_for(tmp_path, None)
    monkeypatch.setattr(_configure, "jar_path", lambda: jar)
    running("3.5.1")
    assert _jar.built_for_spark_version(jar) is None
    assert swa.configure(SparkSession.Builder())._options["spark.jars"] == jar


def test_spark_home_decides_the_running_version(tmp_path, monkeypatch):
    """pyspark starts the Spark in $SPARK_HOME when it is set: its spark-core jar's version picks
    the jar, and a version without one is an error that names the supported versions."""
    home = tmp_path / "spark-3.4.1-bin-hadoop3"
    (home / "jars").mkdir(parents=True)
    (home / "jars" / "spark-core_2.12-3.4.1.jar").write_bytes(b"")
    monkeypatch.setenv("SPARK_HOME", str(home))
    assert _spark_version.running_spark_version() == ("3.4.1", f"the Spark in {home}")
    with pytest.raises(swa.UnsupportedSparkVersionError,
                       match=r"supports Spark 3\.5, 4\.0, 4\.1, 4\.2, 4\.3, not Spark 3\.4\.1"):
        swa.configure(SparkSession.Builder())


@pytest.mark.parametrize("version, name", [
    ("3.5.1", "sliding-window-agg_3.5_2.12.jar"), ("4.0.0", "sliding-window-agg_4.0_2.13.jar"),
    ("4.1.4", "sliding-window-agg_4.1_2.13.jar"), ("4.2", "sliding-window-agg_4.2_2.13.jar"),
    ("4.3.0", "sliding-window-agg_4.3_2.13.jar")])
def test_jar_path_picks_the_jar_of_the_spark_minor_version(tmp_path, monkeypatch, version, name):
    for minor in _jar.SUPPORTED_SPARK_VERSIONS:
        (tmp_path / _jar.jar_file_name(minor)).write_bytes(b"")
    monkeypatch.setattr(_jar, "JARS_DIR", str(tmp_path))
    assert swa.jar_path(version) == str(tmp_path / name)
    (tmp_path / name).unlink()
    # Without it, the jar is built on first use, which only the local Spark can do (test_install).
    monkeypatch.setenv("SLIDING_WINDOW_AGG_CACHE", str(tmp_path / "cache"))
    built = []
    monkeypatch.setattr(_jar_cache, "build", lambda jars: built.append(jars) or "built.jar")
    if scala_build.spark_version().startswith(version[:3]):
        assert swa.jar_path(version) == "built.jar" and built == [scala_build.spark_jars_dir()]
    else:
        with pytest.raises(FileNotFoundError, match=f"no sliding-window-agg jar for Spark {version[:3]} "
                                                    r"here.*--spark-jars.*make wheel"):
            swa.jar_path(version)
        assert built == []


def test_check_spark_version_takes_an_explicit_version():
    swa.check_spark_version(scala_build.spark_version())
    with pytest.raises(swa.SparkVersionMismatchError, match="the running Spark is version 3.4.0"):
        swa.check_spark_version("3.4.0")


@pytest.mark.every_spark
def test_a_jar_of_another_spark_given_with_jars_stops_the_session_with_a_clear_error(tmp_path):
    """No Python check runs for a jar given with --jars: the extension checks when it is applied,
    before a query meets a class or method this Spark lacks."""
    running = scala_build.spark_version()
    minor = ".".join(running.split(".")[:2])
    other = "4.0.5" if minor != "4.0" else "4.1.4"
    out = started_with(relabelled_jar(tmp_path, other))
    assert "[WINDOW_JAR_FOR_ANOTHER_SPARK]" in out, out
    assert f"built for Spark {other}, but this is Spark {running}." in out, out
    assert f"Give Spark the jar built for Spark {minor}: `python -m sliding_window_agg jar`" in out, out


def test_a_jar_of_another_patch_release_runs(tmp_path):
    major, minor = scala_build.spark_version().split(".")[:2]
    assert started_with(relabelled_jar(tmp_path, f"{major}.{minor}.99")).strip() == "1"
