"""A virtualenv per supported Spark, to build that Spark's jar and run the tests on it.

    python buildtools/spark_env.py 4.1 [-- <pytest arguments>]
    python buildtools/spark_env.py --all-jars     # every version's jar (the release wheel)
    python buildtools/spark_env.py 3.5 --run <script> [arguments]   # a script on that Spark
    python buildtools/spark_env.py --prepare 3.5 4.0     # the virtualenvs and jars only

creates (or reuses) build/venvs/spark-4.1 with pyspark 4.1.x and the test tools, builds
sliding-window-agg_4.1_2.13.jar against that pyspark's jars, then runs pytest there with the
sources on PYTHONPATH. `--prepare` also compiles that Spark's sources with sbt (the classes
tests/test_scala_unit.py's sbt run then finds fresh). `make test` runs the tests marked `every_spark` this way on every
version but the default one; `make test SPARK=4.1` runs the whole suite on 4.1.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scala_build  # noqa: E402
from scala_build import supported  # noqa: E402  (python/sliding_window_agg/_supported.py)
import sbt  # noqa: E402  (buildtools/sbt.py)

# The pyspark release each supported Spark minor version is built and tested with (the jar of a
# minor version works with its other patch releases: configure() warns).
PYSPARK = supported.TESTED_PYSPARK
DEFAULT = supported.DEFAULT_SPARK

# What the tests need besides pyspark (the `test` extra of pyproject.toml, and Spark Connect's
# client libraries for the versions whose tests start a Connect server).
TEST_TOOLS = ["pytest>=7", "pytest-xdist>=3", "mkdocs>=1.5", "mkdocstrings[python]>=0.26", "setuptools>=77",
              "pandas>=2,<3", "pyarrow"]
# pyspark 3.5 predates NumPy 2 (and the pyarrow releases that require it).
PINS = {"3.5": ["numpy<2", "pyarrow<17", "pandas<2.3"]}


def venv_dir(minor: str) -> str:
    return os.path.join(ROOT, "build", "venvs", f"spark-{minor}")


def venv_python(minor: str) -> str:
    return os.path.join(venv_dir(minor), "bin", "python")


def ensure_venv(minor: str) -> str:
    """The Python of the version's virtualenv, created with its pyspark on first use."""
    python = venv_python(minor)
    requirements = [f"pyspark[connect]=={PYSPARK[minor]}", *TEST_TOOLS, *PINS.get(minor, [])]
    marker = os.path.join(venv_dir(minor), "requirements.installed")
    installed = open(marker).read() if os.path.exists(marker) else None
    if installed != "\n".join(requirements):
        if not os.path.exists(python):
            subprocess.run([sys.executable, "-m", "venv", venv_dir(minor)], check=True)
        # --no-compile: Python compiles the modules a run imports when it imports them, not all
        # of pyspark's and pandas' thousands up front, on the CPU that Spark 4.3's tests use.
        subprocess.run([python, "-m", "pip", "install", "-q", "--no-compile", *requirements], check=True)
        with open(marker, "w") as f:
            f.write("\n".join(requirements))
    return python


def jars_dir(python: str) -> str:
    out = subprocess.run([python, "-c", "import os, pyspark; print(os.path.dirname(pyspark.__file__))"],
                         check=True, capture_output=True, text=True).stdout.strip()
    return os.path.join(out, "jars")


BUILD_MAIN = "from buildtools import scala_build; scala_build.build_main_jar()"
BUILD_BOTH = ("from buildtools import scala_build; "
              "scala_build.build_test_jar(scala_build.build_main_jar(), scala_build.test_jar())")


def environment(minor: str, build: str = BUILD_MAIN) -> tuple[str, dict]:
    """The version's Python, and the environment that runs the sources with its jar (built)."""
    python = ensure_venv(minor)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.join(ROOT, "python"), ROOT]),
           "SWA_SPARK_JARS": jars_dir(python)}
    env.pop("SPARK_HOME", None)
    # Rebuilt only when a source is newer than the jar.
    subprocess.run([python, "-c", build], env=env, check=True, cwd=ROOT)
    return python, env


def prepare(minor: str) -> None:
    """The version's virtualenv, then sbt's classes of its main and test sources in
    target/spark-X.Y, whose jar becomes the package's jar of that Spark (the same entries as the
    Scala compiler's: tests/test_scala_unit.py), then the test jar: each source compiled once."""
    spark_jars = jars_dir(ensure_venv(minor))
    compile_args = [*sbt.spark_arguments(minor, spark_jars), "package", "Test/compile"]

    def by_sbt(out_jar: str) -> None:
        sbt.run(compile_args, check=True)
        shutil.copyfile(os.path.join(ROOT, "target", os.path.basename(out_jar)), out_jar)

    built = []
    scala_build.build_main_jar(jars=spark_jars, build=lambda out: (by_sbt(out), built.append(out)))
    if not built:  # the package's jar was fresh: sbt's test classes may not be
        sbt.run(compile_args, check=True)
    environment(minor, BUILD_BOTH)


def main(argv: list[str]) -> int:
    if argv == ["--all-jars"]:  # the release wheel's jars
        for minor in PYSPARK:
            environment(minor)
        return 0
    if argv[:1] == ["--prepare"]:
        # make test, while Spark 4.3's tests run: each version's virtualenv, main jar and test jar,
        # and sbt's classes of its main and test sources in target/spark-X.Y (compiled once per
        # run: its tests find them fresh, tests/test_scala_unit.py's sbt only runs the suites), at
        # a low priority.
        os.nice(10)
        for minor in argv[1:]:
            prepare(minor)
        return 0
    minor, pytest_args = argv[0], argv[2:] if argv[1:2] == ["--"] else argv[1:]
    if minor not in PYSPARK:
        sys.exit(f"unknown Spark version {minor}: one of {', '.join(PYSPARK)}")
    python, env = environment(minor)
    if argv[1:2] == ["--run"]:  # a script on that Spark, such as tests/support/checkpoint_fixtures.py
        env["PYTHONPATH"] += os.pathsep + os.path.join(ROOT, "tests", "support")
        return subprocess.run([python, *argv[2:]], env=env, cwd=ROOT).returncode
    print(f"== Spark {PYSPARK[minor]}: pytest {' '.join(pytest_args)}", flush=True)
    return subprocess.run([python, "-m", "pytest", *pytest_args], env=env, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
