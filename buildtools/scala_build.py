"""The checkout's builds: the jar of each Spark into the package, and the test jars.

The compile itself is the package's (python/sliding_window_agg/_jar_build.py, which an installed
package also uses to build the jar of the user's Spark on first use): pyspark's wheel carries
every Spark jar and scala-compiler, so no Maven repository is needed. ``build.sbt`` builds the
same jar where Maven Central is reachable. Used by ``setup.py`` (an install or wheel built where
pyspark is installed carries that Spark's jar), by buildtools/spark_env.py and by the tests.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib
import os
import sys
import tempfile
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE_DIR = os.path.join(ROOT, "python", "sliding_window_agg")


def _package_module(name: str):
    """A module of the package's folder, imported without the package's ``__init__`` (which needs
    pyspark, absent from an isolated build) under a name of its own (so the real package still
    imports as itself): the compile lives in the package, which builds the jar of the installed
    Spark on first use."""
    if _SOURCES_PACKAGE not in sys.modules:
        stub = types.ModuleType(_SOURCES_PACKAGE)
        stub.__path__ = [PACKAGE_DIR]
        sys.modules[_SOURCES_PACKAGE] = stub
    return importlib.import_module(f"{_SOURCES_PACKAGE}.{name}")


_SOURCES_PACKAGE = "_sliding_window_agg_sources"


jar_build = _package_module("_jar_build")
supported = _package_module("_supported")

# scala/src/main: scala/ (every Spark), scala-shims/spark-<a>[-<b>]/ (Spark minor versions a to b,
# docs/development.md, "One source tree for every Spark") and resources/ (the error conditions).
MAIN = os.path.join(ROOT, "scala", "src", "main")
TEST_SOURCES = os.path.join(ROOT, "scala", "src", "test", "scala")
TEST_SHIM_SOURCES = os.path.join(ROOT, "scala", "src", "test", "scala-shims")
JARS_DIR = os.path.join(PACKAGE_DIR, "jars")
# The one place the version is written (pyproject.toml, build.sbt and the package read it too).
VERSION_FILE = os.path.join(PACKAGE_DIR, "VERSION")
# The files of the package's own compile: a change to them rebuilds the jars too.
BUILD_CODE = [os.path.abspath(__file__), jar_build.__file__, supported.__file__]


def spark_jars_dir() -> str:
    """The jars folder of the pyspark this build compiles against."""
    override = os.environ.get("SWA_SPARK_JARS")
    if override:
        return override
    try:
        import pyspark
    except ImportError as e:  # pragma: no cover - reported to the person building
        raise RuntimeError(
            "Building a sliding-window-agg jar needs pyspark (it compiles against pyspark/jars). "
            "Install a supported pyspark or set SWA_SPARK_JARS to a Spark's jars folder."
        ) from e
    return os.path.join(os.path.dirname(pyspark.__file__), "jars")


def spark_version(jars: str | None = None) -> str:
    """The version of the Spark jars the build compiles against (recorded in the jar)."""
    return jar_build.spark_version(jars or spark_jars_dir())


def spark_minor(jars: str | None = None) -> str:
    """The minor version (4.3) of the Spark jars the build compiles against."""
    return jar_build.spark_minor(jars or spark_jars_dir())


def is_default_spark(jars: str | None = None) -> bool:
    """Whether the build compiles against the default Spark (the one `make setup` installs)."""
    return spark_minor(jars) == supported.DEFAULT_SPARK


def scala_binary(jars: str | None = None) -> str:
    return jar_build.scala_binary(jars or spark_jars_dir())


def default_jar(jars: str | None = None) -> str:
    """Where the package keeps the jar for the Spark jars the build compiles against."""
    return os.path.join(JARS_DIR, jar_build.jar_name(jars or spark_jars_dir()))


def test_jar(jars: str | None = None) -> str:
    """Where the tests keep the test jar (the ScalaTest suites, test-only UDAFs) of a Spark version."""
    jars = jars or spark_jars_dir()
    return os.path.join(ROOT, "build", "test-jars",
                        f"sliding-window-agg-tests_{jar_build.spark_minor(jars)}_{scala_binary(jars)}.jar")


def package_version() -> str:
    """The package's version, from python/sliding_window_agg/VERSION."""
    with open(VERSION_FILE, encoding="utf-8") as f:
        return f.read().strip()


def _inputs_digest(paths: list[str]) -> str:
    """A digest of what a build reads: each input's name (from the checkout's root) and bytes."""
    return jar_build.files_digest(sorted(paths), ROOT)


def digest_file(out_jar: str) -> str:
    """Where the digest of the inputs ``out_jar`` was built from is kept, beside it (the package
    ships only ``jars/*.jar``)."""
    return out_jar + ".digest"


def _built_from(out_jar: str, digest: str) -> bool:
    """Whether ``out_jar`` is there and was built from inputs of that digest: a checkout, a
    branch switch or a copy that leaves the sources as they were does not build it again, and
    any change of their contents does."""
    try:
        with open(digest_file(out_jar)) as f:
            return f.read().strip() == digest and os.path.exists(out_jar)
    except FileNotFoundError:
        return False


@contextlib.contextmanager
def _recorded(out_jar: str, digest: str):
    """Records, once the build inside the block has written ``out_jar``, the digest of the inputs
    read before it started: a source saved while the compiler ran gives another digest, and the
    next build compiles again."""
    with contextlib.suppress(FileNotFoundError):
        os.remove(digest_file(out_jar))
    yield
    with open(digest_file(out_jar), "w") as f:
        f.write(digest + "\n")


def _java() -> str:
    return jar_build.java()


def scalac(srcs: list[str], classpath: list[str], out: str, jars: str | None = None) -> None:
    jar_build.scalac(srcs, classpath, out, jars or spark_jars_dir())


def build_main_jar(out_jar: str | None = None, force: bool = False, jars: str | None = None,
                   build=None) -> str:
    """Compiles scala/src/main (with the shims of the Spark version of ``jars``, by default the
    installed pyspark's) into ``out_jar`` (by default the package's jar of that version), unless
    it was built from the same sources, resources, build code and version (their digest) and
    the same Spark jars. ``build(out_jar)``, if given, builds it instead of the Scala compiler
    of pyspark's jars: the same jar, by sbt (buildtools/spark_env.py --prepare)."""
    jars = jars or spark_jars_dir()
    out_jar = out_jar or default_jar(jars)
    inputs = jar_build.main_inputs(MAIN, jars) + BUILD_CODE + [VERSION_FILE]
    with exclusive(out_jar):
        digest = _inputs_digest(inputs) + "-" + spark_version(jars)
        if not force and _built_from(out_jar, digest):
            return out_jar
        with _recorded(out_jar, digest):
            if build:
                build(out_jar)
                return out_jar
            return jar_build.build_jar(MAIN, jars, out_jar, package_version())


@contextlib.contextmanager
def exclusive(path: str):
    """Holds what is made at ``path`` to this process: test workers that start together
    (pytest -n), or two runs, check and make it one after the other, so the first makes it and
    the others find it made (a jar, a class data sharing archive). The lock is a file of the
    temporary folder named after ``path``, so nothing is left beside what is made (an unlinked
    lock file would let a waiting process and a new one both hold it)."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(lock_file(path), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def lock_file(path: str) -> str:
    """The lock of ``path`` for `exclusive`: one per absolute path, in the temporary folder."""
    folder = os.path.join(tempfile.gettempdir(), "sliding-window-agg-locks")
    os.makedirs(folder, exist_ok=True)
    digest = hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:24]
    return os.path.join(folder, f"{os.path.basename(path)}-{digest}.lock")


# The tests' JVMs compile with C1 only (tests/conftest.py sets it for those spark-submit starts, and
# build.sbt for the Scala suites'): they take a quarter less CPU that way.
TEST_JVM_OPTIONS = "-XX:TieredStopAtLevel=1"


def scalatest_classpath(jars: str | None = None) -> list[str]:
    """ScalaTest of the Scala of ``jars`` (buildtools/maven_classpath.py, resolved by the machine's
    ``mvn`` once), less the jars that Spark's folder already has (scala-library, scala-reflect, ...)."""
    if ROOT not in sys.path:  # imported as `scala_build` from buildtools/ (buildtools/spark_env.py)
        sys.path.insert(0, ROOT)
    from buildtools import maven_classpath

    jars = jars or spark_jars_dir()
    binary = scala_binary(jars)
    return maven_classpath.beside(
        maven_classpath.classpath(f"scalatest-{binary}", maven_classpath.scalatest(binary)), jars)


def build_test_jar(main_jar: str, out_jar: str, jars: str | None = None) -> str:
    """Compiles scala/src/test (the ScalaTest suites and the test-only UDAFs, with the test shims of
    the Spark version) against the main jar and ScalaTest."""
    jars = jars or spark_jars_dir()
    srcs = jar_build.sources(TEST_SOURCES) + [
        s for f in jar_build.shim_folders(jar_build.spark_minor(jars), TEST_SHIM_SOURCES)
        for s in jar_build.sources(f)]
    with exclusive(out_jar):
        scalatest = scalatest_classpath(jars)
        digest = _inputs_digest(srcs + [main_jar] + BUILD_CODE) + "-" + spark_version(jars) + "-" + \
            ",".join(os.path.basename(j) for j in scalatest)
        if _built_from(out_jar, digest):
            return out_jar
        tmp = out_jar + ".tmp.jar"
        with _recorded(out_jar, digest):
            scalac(srcs, [main_jar, *scalatest], tmp, jars)
            os.replace(tmp, out_jar)
        return out_jar


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Builds the package's jar for one Spark version.")
    parser.add_argument("--spark-jars", help="a Spark jars folder (default: the installed pyspark's)")
    parser.add_argument("--force", action="store_true", help="build even if the jar is newer than its sources")
    parser.add_argument("out", nargs="?", help="the jar to write (default: the package's jar of that Spark)")
    options = parser.parse_args()
    print(build_main_jar(options.out, force=options.force, jars=options.spark_jars))
