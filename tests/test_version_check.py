"""configure() checks that the bundled jar was built for the Spark it will run on: a different
major.minor version is a clear error, a different patch release a warning."""
from __future__ import annotations

import concurrent.futures
import io
import os
import shutil
import time
import warnings
import zipfile

import pytest
from pyspark.sql import SparkSession

import sliding_window_agg as swa
from buildtools import scala_build
from deploy_util import relabelled_jar, started_with
from sliding_window_agg import _configure, _jar, _jar_cache, _spark_version


def jar_built_for(tmp_path, version, name=None):
    """A stand-in for the bundled jar that records ``version`` (None: no record at all)."""
    jar = tmp_path / (name or f"built-for-{version}.jar")
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
        jar_built_for(tmp_path, None, _jar.jar_file_name(minor))
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_jar_of_another_patch_release_runs(tmp_path):
    major, minor = scala_build.spark_version().split(".")[:2]
    assert started_with(relabelled_jar(tmp_path, f"{major}.{minor}.99")).strip() == "1"


# A jar in the cache that cannot be read (a build or a copy cut short, a full disk) is built
# again under the cache folder's lock; one the installation carries cannot be, and its error says
# which file it is and what to do. The build is stood in for by a copy of the checkout's jar.

@pytest.fixture
def cache(tmp_path, monkeypatch):
    """No carried jar, a cache folder in tmp_path, and a build that copies the checkout's jar
    (slowly, so that concurrent callers overlap); returns (the running Spark's cached jar, the
    builds made)."""
    from checkout import fresh_main_jar

    real = fresh_main_jar()
    monkeypatch.setattr(_jar, "JARS_DIR", str(tmp_path / "carried"))
    monkeypatch.setenv("SLIDING_WINDOW_AGG_CACHE", str(tmp_path / "cache"))
    builds = []

    def build_jar(main, jars, out_jar, version):
        builds.append(out_jar)
        time.sleep(0.5)
        shutil.copyfile(real, out_jar + ".tmp")
        os.replace(out_jar + ".tmp", out_jar)
        return out_jar

    monkeypatch.setattr(_jar_cache._jar_build, "build_jar", build_jar)
    minor = ".".join(scala_build.spark_version().split(".")[:2])
    jar = os.path.join(_jar_cache.cache_folder(_jar_cache.sources_dir()), _jar.jar_file_name(minor))
    os.makedirs(os.path.dirname(jar))
    return jar, builds, real


def truncated(real):
    with open(real, "rb") as f:
        return f.read()[: os.path.getsize(real) // 2]


def without_build_record(real):
    out = io.BytesIO()
    with zipfile.ZipFile(real) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.infolist():
            if item.filename != _jar.BUILD_INFO_ENTRY:
                dst.writestr(item, src.read(item))
    return out.getvalue()


@pytest.mark.parametrize("content", [lambda real: b"", truncated, without_build_record],
                         ids=["empty", "truncated", "without-build-record"])
def test_an_unreadable_cached_jar_is_built_again(cache, content, capsys):
    jar, builds, real = cache
    with open(jar, "wb") as f:
        f.write(content(real))
    builder = swa.configure(SparkSession.Builder())
    assert builder._options["spark.jars"] == jar
    assert builds == [jar]
    assert _jar.built_for_spark_version(jar) == scala_build.spark_version()
    assert f"{jar} is not a readable jar" in capsys.readouterr().err
    assert swa.jar_path() == jar and builds == [jar]  # now at hand


def test_concurrent_callers_build_an_unreadable_cached_jar_once(cache):
    jar, builds, real = cache
    with open(jar, "wb") as f:
        f.write(truncated(real))
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        paths = list(pool.map(lambda _: swa.jar_path(), range(3)))
    assert paths == [jar] * 3
    assert builds == [jar]
    assert _jar.built_for_spark_version(jar) == scala_build.spark_version()


def test_an_unreadable_cached_jar_of_another_spark_names_the_file_to_delete(cache):
    """The jar of a Spark that is not the local one cannot be built here: the error says which
    file to delete and how to build it again."""
    jar, builds, real = cache
    minor = "4.0" if not scala_build.spark_version().startswith("4.0") else "4.1"
    other = os.path.join(os.path.dirname(jar), _jar.jar_file_name(minor))
    with open(other, "wb"):
        pass
    with pytest.raises(swa.JarUnreadableError) as e:
        swa.jar_path(minor)
    message = str(e.value)
    assert f"The sliding-window-agg jar {other} is not a readable jar" in message, message
    assert f"delete it and build it again: python -m sliding_window_agg jar --spark-jars" in message, message
    assert builds == []


@pytest.mark.parametrize("content", [lambda real: b"", truncated], ids=["empty", "truncated"])
def test_an_unreadable_carried_jar_is_an_error_naming_the_file(cache, content, tmp_path):
    jar, builds, real = cache
    carried = tmp_path / "carried" / os.path.basename(jar)
    carried.parent.mkdir()
    carried.write_bytes(content(real))
    builder = SparkSession.Builder()
    with pytest.raises(swa.JarUnreadableError) as e:
        swa.configure(builder)
    message = str(e.value)
    assert f"The sliding-window-agg jar {carried} is not a readable jar" in message, message
    assert "pip install --force-reinstall" in message, message
    assert builds == [] and "spark.jars" not in builder._options
