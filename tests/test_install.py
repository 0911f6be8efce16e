"""A user's install: `pip install <checkout>`, with no flag, in a fresh virtualenv that already
holds their pyspark (each supported Spark: every_spark), works with that pyspark. The install
carries the Scala sources and no jar; the first `configure()` builds the jar of that Spark with
its own Scala compiler, says so on stderr, and keeps it for the next runs; the windows it
computes are the reference's.

The first-use build is checked on the default Spark only: it is the compile `make test` has just
done for every Spark (buildtools/scala_build.py and the package share `_jar_build`). On the other
Sparks the install's cache is given the run's jar where the package looks for it (its folder of
this version and source digest), and the test checks that `configure()` takes it without building:
each Spark's jar is compiled once per run."""
from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from buildtools import scala_build
from deploy_util import copy_package_sources
from reference import sliding_windows

pytestmark = pytest.mark.slow  # processes, servers or long runs: `make test` only

# (key, time in seconds, value)
EVENTS = [("alice", 10, 1), ("alice", 14, 2), ("alice", 17, 3), ("alice", 25, 4), ("alice", 31, 5),
          ("bob", 3, 10), ("bob", 5, 20), ("bob", 30, 30)]

PROBE = textwrap.dedent("""
    import json
    from pyspark.sql import SparkSession, functions as F
    import sliding_window_agg as swa

    spark = swa.configure(SparkSession.builder.master("local[1]")
                          .config("spark.ui.enabled", "false")).getOrCreate()
    events = spark.createDataFrame(EVENTS, "k string, t long, v long")
    events.createOrReplaceTempView("events")
    rows = spark.sql(
        "SELECT k, unix_micros(w.start), unix_micros(w.end), total FROM ("
        "  SELECT k, sliding_window(ts, '10 seconds') AS w, sum(v) AS total"
        "  FROM (SELECT k, v, timestamp_seconds(t) AS ts FROM events)"
        "  GROUP BY k, sliding_window(ts, '10 seconds'))").collect()
    print(json.dumps({"windows": sorted([list(r) for r in rows]), "jar": swa.jar_path(),
                      "carried": swa._jar.bundled_jars(), "spark": spark.version,
                      "built_for": swa._jar.built_for_spark_version()}))
""")


def user_environment() -> dict:
    """The environment of a user's shell: not the test run's sources, Spark or jars."""
    return {k: v for k, v in os.environ.items()
            if k not in ("PYTHONPATH", "SPARK_HOME", "SWA_SPARK_JARS", "SPARK_REMOTE")}


def link_installed(distribution: str, site: str) -> None:
    """Puts the running environment's `distribution` (its package and its .dist-info) into the
    virtualenv's site-packages, as links: the venv then holds the user's pyspark (a copy would be
    400 MB)."""
    module = __import__(distribution)
    package = os.path.dirname(os.path.abspath(module.__file__))
    home = os.path.dirname(package)
    infos = glob.glob(os.path.join(home, f"{distribution}-*.dist-info"))
    assert infos, f"no .dist-info of {distribution} in {home}"
    for path in [package, *infos]:
        os.symlink(path, os.path.join(site, os.path.basename(path)))


@pytest.mark.every_spark
def test_pip_install_of_a_checkout_works_with_the_pyspark_already_installed(tmp_path):
    import pyspark

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    env = {**user_environment(), "SLIDING_WINDOW_AGG_CACHE": str(tmp_path / "cache")}
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True, env=env).stdout.strip()
    for distribution in ("pyspark", "py4j"):
        link_installed(distribution, site)

    install = subprocess.run([python, "-m", "pip", "install", "-q", copy_package_sources(tmp_path / "src", ("__pycache__", "*.jar"))],
                             capture_output=True, text=True, timeout=900, env=env, cwd=tmp_path)
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]

    builds_here = scala_build.is_default_spark()
    if not builds_here:
        cached = subprocess.run(
            [python, "-c", "import sys; from sliding_window_agg import _jar_cache; print(_jar_cache.cache_path(sys.argv[1]))",
             scala_build.spark_minor()],
            capture_output=True, text=True, check=True, env=env, cwd=tmp_path).stdout.strip()
        assert cached.startswith(str(tmp_path / "cache")), cached
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        shutil.copy2(scala_build.build_main_jar(), cached)

    probe = f"EVENTS = {EVENTS!r}\n" + PROBE
    first = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=900, env=env,
                           cwd=tmp_path)
    assert first.returncode == 0, first.stderr[-5000:]
    out = json.loads(first.stdout.strip().splitlines()[-1])

    # The install carried no jar (its isolated build had no pyspark): configure() built the one
    # of the user's Spark, with a word on stderr, into the cache (or, on the other Sparks, found
    # the run's jar there and built nothing).
    assert out["carried"] == {}
    assert out["spark"] == pyspark.__version__ == out["built_for"]
    assert out["jar"].startswith(str(tmp_path / "cache")), out["jar"]
    if builds_here:
        assert f"no jar for Spark {pyspark.__version__} yet: building it once" in first.stderr
        assert f"built {os.path.basename(out['jar'])} in " in first.stderr
    else:
        assert "building" not in first.stderr, first.stderr[-3000:]

    # The reference's times are micro-seconds, Spark's resolution.
    expected = sliding_windows(EVENTS, 10_000_000, key=lambda e: e[0], time=lambda e: e[1] * 1_000_000)
    assert out["windows"] == sorted([k, s, e, sum(r[2] for r in rows)] for (k, s, e), rows in expected.items())

    # The next runs take the built jar, without building: `python -m sliding_window_agg jar`
    # prints it for spark-submit --jars.
    again = subprocess.run([python, "-m", "sliding_window_agg", "jar"], capture_output=True, text=True,
                           timeout=300, env=env, cwd=tmp_path)
    assert again.returncode == 0 and again.stdout.strip() == out["jar"], again.stderr
    assert "building" not in again.stderr

    # A jar for a Spark that is not here cannot be built here: the message says how to get one.
    other = next(v for v in ("4.3", "3.5") if not pyspark.__version__.startswith(v))
    missing = subprocess.run([python, "-m", "sliding_window_agg", "jar", "--spark", other],
                             capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert missing.returncode == 1 and missing.stdout == ""
    for advice in ("--spark-jars", f"where pyspark {other} is installed", "make wheel"):
        assert advice in missing.stderr, missing.stderr
