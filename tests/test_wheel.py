"""`pip wheel .` makes one pure-Python wheel that bundles the jar and the Spark version it was
built for, and the installed wheel finds both; the wheel, the jar and the package all carry the
version written in python/sliding_window_agg/VERSION."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import zipfile

import pytest

from buildtools import scala_build
from checkout import ROOT, fresh_main_jar
from deploy_util import copy_package_sources

# One test worker runs this module's tests (`make test` runs pytest -n 2 --dist loadgroup):
# the wheel they inspect is built once, by a module fixture.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("wheel")]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel `pip wheel .` makes of a copy of the sources."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 77:  # pyproject's license needs PEP 639
        pytest.skip(f"setuptools {setuptools.__version__} < 77 (pip install '.[test]' installs it)")
    src = tmp_path / "src"
    copy_package_sources(src, ("__pycache__", "jars"))
    # The build compiles the jar unless one built from the same sources is there: give it the test
    # run's fresh jar and the digest of its inputs (compiling is covered by every other test).
    (src / "python" / "sliding_window_agg" / "jars").mkdir()
    jar = fresh_main_jar()
    copy = src / "python" / "sliding_window_agg" / "jars" / os.path.basename(scala_build.default_jar())
    shutil.copy(jar, copy)
    shutil.copy(scala_build.digest_file(jar), scala_build.digest_file(str(copy)))

    dist = tmp_path / "dist"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation", "-w", str(dist)],
        cwd=src, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    wheels = os.listdir(dist)
    assert len(wheels) == 1 and wheels[0].endswith("-py3-none-any.whl"), wheels
    assert wheels[0].startswith(f"sliding_window_agg-{scala_build.package_version()}-")
    return dist / wheels[0]


def test_pip_wheel_bundles_the_jar_and_its_spark_version(wheel, tmp_path):
    jar_name = os.path.basename(scala_build.default_jar())
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        assert f"sliding_window_agg/jars/{jar_name}" in names
        assert "sliding_window_agg/_configure.py" in names and "sliding_window_agg/py.typed" in names
        # The Scala sources, from which the package builds the jar of any other supported Spark.
        assert "sliding_window_agg/scala-src/scala/org/apache/spark/sql/slidingwindow/SlidingWindowExtensions.scala" in names
        assert [n for n in names if n.startswith("sliding_window_agg/scala-src/scala-shims/spark-3.5")]
        assert [n for n in names if n.startswith("sliding_window_agg/scala-src/resources/error/")]
        metadata = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        (tmp_path / "inner.jar").write_bytes(z.read(f"sliding_window_agg/jars/{jar_name}"))
    # pyspark only through the extra: a pyspark-client environment installs no second pyspark.
    assert 'Requires-Dist: pyspark<4.4,>=3.5; extra == "spark"' in metadata
    assert not [line for line in metadata.splitlines()
                if line.startswith("Requires-Dist: pyspark") and "extra ==" not in line]
    version = scala_build.package_version()
    assert f"\nVersion: {version}\n" in metadata
    with zipfile.ZipFile(tmp_path / "inner.jar") as jar:
        assert "org/apache/spark/sql/slidingwindow/SlidingWindowExtensions.class" in jar.namelist()
        assert jar.read("sliding-window-agg.properties").decode() == \
            f"spark.version={scala_build.spark_version()}\nversion={version}\n"
        manifest = jar.read("META-INF/MANIFEST.MF").decode()
        assert f"Implementation-Version: {version}\n" in manifest
        assert "Implementation-Title: sliding-window-agg\n" in manifest

    # Installed (into a folder of its own), the package finds its jar and passes its version check.
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target", str(site), str(wheel)],
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    probe = ("import sliding_window_agg as s; s.check_spark_version(); "
             "print(s.jar_path()); print(s._jar.built_for_spark_version()); print(s.__version__)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(site)}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines() == [
        str(site / "sliding_window_agg" / "jars" / jar_name), scala_build.spark_version(),
        version]


def test_version_is_written_once():
    """python/sliding_window_agg/VERSION holds the version; pyproject.toml, build.sbt, the
    package and the build script read it instead of repeating it."""
    import sliding_window_agg as swa

    version = scala_build.package_version()
    assert swa.__version__ == version
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        pyproject = f.read()
    assert 'dynamic = ["version"]' in pyproject
    assert 'version = { file = "python/sliding_window_agg/VERSION" }' in pyproject
    with open(os.path.join(ROOT, "build.sbt")) as f:
        assert 'IO.read(file("python/sliding_window_agg/VERSION"))' in f.read()
    repeated = []
    for folder in ["python/sliding_window_agg", "buildtools"]:
        for name in os.listdir(os.path.join(ROOT, folder)):
            if name.endswith(".py"):
                repeated.append(os.path.join(folder, name))
    repeated += ["pyproject.toml", "build.sbt", "setup.py"]
    holding = [p for p in repeated if version in open(os.path.join(ROOT, p)).read()]
    assert not holding, f"the version {version} is written again in {holding}"


def test_spark_connect_client_alone(wheel, tmp_path):
    """With only the Spark Connect client installed (pyspark-client, no JVM), the wheel installs
    without pulling in pyspark, the column functions build their Columns, and configure() says
    that the jar and the extension belong on the Connect server."""
    venv = tmp_path / "client"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    # Without the test run's PYTHONPATH (buildtools/spark_env.py puts the sources on it): pip
    # would take their egg-info for an installed sliding-window-agg and skip the wheel.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPARK_REMOTE")}
    result = subprocess.run([python, "-m", "pip", "install", "-q", "pyspark-client", str(wheel)],
                            capture_output=True, text=True, timeout=900, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    installed = subprocess.run([python, "-m", "pip", "list", "--format=freeze"], capture_output=True,
                               text=True, check=True, env=env).stdout.lower().splitlines()
    assert not [line for line in installed if line.startswith("pyspark==")], installed
    probe = textwrap.dedent("""
        from pyspark.sql import SparkSession
        import sliding_window_agg as swa
        print(type(swa.sliding_window("ts", "10 seconds")).__name__)
        try:
            swa.configure(SparkSession.builder)
        except swa.ConnectClientOnlyError as e:
            print(e)
        print(swa.configure(SparkSession.builder.remote("sc://localhost:15002")) is not None)
    """)
    # pyspark-client's own column functions (F.lit) exit when SPARK_HOME is unset (4.2.0 looks
    # for a Spark while checking its dependencies): any folder will do, a Spark is not needed.
    env["SPARK_HOME"] = str(tmp_path)
    result = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=300,
                            cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert lines[0] == "Column" and lines[-1] == "True", lines
    assert "belong on the Spark Connect server" in lines[1] and "--jars" in lines[1], lines
