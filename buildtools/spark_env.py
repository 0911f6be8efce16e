"""A virtualenv per supported Spark, to build that Spark's jar and run the tests on it.

    python buildtools/spark_env.py 4.1 [-- <pytest arguments>]
    python buildtools/spark_env.py --all-jars     # every version's jar (the release wheel)

creates (or reuses) build/venvs/spark-4.1 with pyspark 4.1.x and the test tools, builds
sliding-window-agg_4.1_2.13.jar against that pyspark's jars, then runs pytest there with the
sources on PYTHONPATH. `make test` runs the tests marked `every_spark` this way on every
version but the default one; `make test SPARK=4.1` runs the whole suite on 4.1.
"""
from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The pyspark release each supported Spark minor version is built and tested with (the jar of a
# minor version works with its other patch releases: configure() warns).
PYSPARK = {"3.5": "3.5.9", "4.0": "4.0.5", "4.1": "4.1.4", "4.2": "4.2.1", "4.3": "4.3.0"}
DEFAULT = "4.3"

# What the tests need besides pyspark (the `test` extra of pyproject.toml, and Spark Connect's
# client libraries for the versions whose tests start a Connect server).
TEST_TOOLS = ["pytest>=7", "mkdocs>=1.5", "mkdocstrings[python]>=0.26", "setuptools>=77", "pandas>=2,<3",
              "pyarrow"]


def venv_dir(minor: str) -> str:
    return os.path.join(ROOT, "build", "venvs", f"spark-{minor}")


def venv_python(minor: str) -> str:
    return os.path.join(venv_dir(minor), "bin", "python")


def ensure_venv(minor: str) -> str:
    """The Python of the version's virtualenv, created with its pyspark on first use."""
    python = venv_python(minor)
    marker = os.path.join(venv_dir(minor), f"pyspark-{PYSPARK[minor]}.installed")
    if not os.path.exists(marker):
        subprocess.run([sys.executable, "-m", "venv", venv_dir(minor)], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", f"pyspark[connect]=={PYSPARK[minor]}",
                        *TEST_TOOLS], check=True)
        open(marker, "w").close()
    return python


def jars_dir(python: str) -> str:
    out = subprocess.run([python, "-c", "import os, pyspark; print(os.path.dirname(pyspark.__file__))"],
                         check=True, capture_output=True, text=True).stdout.strip()
    return os.path.join(out, "jars")


def environment(minor: str) -> tuple[str, dict]:
    """The version's Python, and the environment that runs the sources with its jar (built)."""
    python = ensure_venv(minor)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.join(ROOT, "python"), ROOT]),
           "SWA_SPARK_JARS": jars_dir(python)}
    env.pop("SPARK_HOME", None)
    subprocess.run([python, os.path.join(ROOT, "buildtools", "scala_build.py")], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return python, env


def main(argv: list[str]) -> int:
    if argv == ["--all-jars"]:  # the release wheel's jars
        for minor in PYSPARK:
            environment(minor)
        return 0
    minor, pytest_args = argv[0], argv[2:] if argv[1:2] == ["--"] else argv[1:]
    if minor not in PYSPARK:
        sys.exit(f"unknown Spark version {minor}: one of {', '.join(PYSPARK)}")
    python, env = environment(minor)
    print(f"== Spark {PYSPARK[minor]}: pytest {' '.join(pytest_args)}", flush=True)
    return subprocess.run([python, "-m", "pytest", *pytest_args], env=env, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
