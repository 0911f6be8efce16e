"""Offline build of the Scala core with the Scala compiler that pyspark ships.

No Maven repository is needed: pyspark's wheel carries every Spark jar and
scala-compiler, so ``scalac`` runs as ``java scala.tools.nsc.Main`` against
``pyspark/jars/*``. ``build.sbt`` builds the same jar where Maven Central is
reachable. Used by ``setup.py`` (so ``pip install .`` builds the jar) and by the
JUnit test runner.
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAIN_SOURCES = os.path.join(ROOT, "scala", "src", "main", "scala")
# Per-version code: scala-shims/spark-<a> or spark-<a>-<b>, compiled for every Spark minor version
# from a to b (docs/development.md, "One source tree for every Spark").
SHIM_SOURCES = os.path.join(ROOT, "scala", "src", "main", "scala-shims")
TEST_SOURCES = os.path.join(ROOT, "scala", "src", "test", "scala")
TEST_SHIM_SOURCES = os.path.join(ROOT, "scala", "src", "test", "scala-shims")
# Files the jar carries as they are (the error conditions), under their path in this folder.
MAIN_RESOURCES = os.path.join(ROOT, "scala", "src", "main", "resources")
# The Spark minor versions the sources build for, oldest first; the jar of each is
# sliding-window-agg_<spark minor>_<scala binary>.jar (as Delta's delta-spark_4.1_2.13).
SPARK_MINORS = ("3.5", "4.0", "4.1", "4.2", "4.3")
JARS_DIR = os.path.join(ROOT, "python", "sliding_window_agg", "jars")
# The one place the version is written (pyproject.toml, build.sbt and the package read it too).
VERSION_FILE = os.path.join(ROOT, "python", "sliding_window_agg", "VERSION")
# What the package reads back from the jar (sliding_window_agg._jar.BUILD_INFO_ENTRY).
BUILD_INFO_ENTRY = "sliding-window-agg.properties"
MANIFEST = "META-INF/MANIFEST.MF"
SCALAC_OPTIONS = ["-deprecation", "-feature", "-encoding", "UTF-8"]


def java_release(scala_binary: str) -> str:
    """The Java bytecode the jar targets: Spark 3.5 (Scala 2.12) clusters may run Java 8."""
    return "8" if scala_binary == "2.12" else "17"


def spark_jars_dir() -> str:
    """The jars folder of the pyspark this build compiles against."""
    override = os.environ.get("SWA_SPARK_JARS")
    if override:
        return override
    try:
        import pyspark  # noqa: F401  (build requirement)
    except ImportError as e:  # pragma: no cover - reported to the person building
        raise RuntimeError(
            "Building sliding-window-agg needs pyspark (it compiles against pyspark/jars). "
            "Install pyspark==4.3.0 or set SWA_SPARK_JARS to a folder of Spark 4.3 jars."
        ) from e
    return os.path.join(os.path.dirname(pyspark.__file__), "jars")


def spark_version(jars: str | None = None) -> str:
    """The version of the Spark jars the build compiles against (recorded in the jar)."""
    for name in sorted(os.listdir(jars or spark_jars_dir())):
        match = re.fullmatch(r"spark-core_[\d.]+-(\d+\.\d+\.\d+.*)\.jar", name)
        if match:
            return match.group(1)
    import pyspark

    return pyspark.__version__


def spark_minor(jars: str | None = None) -> str:
    """"4.3" for Spark 4.3.0."""
    return ".".join(spark_version(jars).split(".")[:2])


def scala_version(jars: str | None = None) -> str:
    """The version of the Scala compiler (and library) shipped with the Spark jars."""
    for name in os.listdir(jars or spark_jars_dir()):
        match = re.fullmatch(r"scala-compiler-(\d+\.\d+\.\d+)\.jar", name)
        if match:
            return match.group(1)
    raise RuntimeError(f"no scala-compiler-*.jar in {jars or spark_jars_dir()}: the build compiles "
                       "with the Scala compiler pyspark ships")


def scala_binary(jars: str | None = None) -> str:
    return ".".join(scala_version(jars).split(".")[:2])


def jar_file_name(minor: str, binary: str) -> str:
    """The name of the jar for one Spark minor version: sliding-window-agg_4.3_2.13.jar."""
    return f"sliding-window-agg_{minor}_{binary}.jar"


def default_jar(jars: str | None = None) -> str:
    """Where the package keeps the jar for the Spark jars the build compiles against."""
    return os.path.join(JARS_DIR, jar_file_name(spark_minor(jars), scala_binary(jars)))


def test_jar(jars: str | None = None) -> str:
    """Where the test suites keep the test jar (JUnit suites, test-only UDAFs) of a Spark version."""
    return os.path.join(ROOT, "build", "test-jars",
                        f"sliding-window-agg-tests_{spark_minor(jars)}_{scala_binary(jars)}.jar")


def _minor_key(minor: str) -> tuple:
    return tuple(int(p) for p in minor.split("."))


def shim_folders(minor: str, shims: str = SHIM_SOURCES) -> list[str]:
    """The shim folders compiled for a Spark minor version: every scala-shims/spark-<a>[-<b>]
    whose range holds it."""
    found = []
    for name in sorted(os.listdir(shims)) if os.path.isdir(shims) else []:
        match = re.fullmatch(r"spark-(\d+\.\d+)(?:-(\d+\.\d+))?", name)
        if not match:
            raise RuntimeError(f"unexpected shim folder {name}: name it spark-<a> or spark-<a>-<b>")
        low, high = match.group(1), match.group(2) or match.group(1)
        if _minor_key(low) <= _minor_key(minor) <= _minor_key(high):
            found.append(os.path.join(shims, name))
    return found


def package_version() -> str:
    """The package's version, from python/sliding_window_agg/VERSION."""
    with open(VERSION_FILE, encoding="utf-8") as f:
        return f.read().strip()


def build_properties(jars: str | None = None) -> str:
    """The text of sliding-window-agg.properties: the Spark version the jar is compiled against
    (checked by sliding_window_agg.check_spark_version) and the package's version."""
    return f"spark.version={spark_version(jars)}\nversion={package_version()}\n"


def manifest(compiled: str, jars: str | None = None) -> str:
    """The manifest scalac wrote, with the jar's title, version and Spark version added."""
    lines = [line for line in compiled.splitlines() if line.strip()
             and not line.startswith(("Implementation-Title:", "Implementation-Version:", "Spark-Version:"))]
    lines += ["Implementation-Title: sliding-window-agg", f"Implementation-Version: {package_version()}",
              f"Spark-Version: {spark_version(jars)}"]
    return "\n".join(lines) + "\n\n"


def package_jar(compiled_jar: str, out_jar: str, resource_files: list[str] = (),
                jars: str | None = None) -> None:
    """Writes ``out_jar``: the classes scalac compiled into ``compiled_jar``, its manifest with the
    versions added, sliding-window-agg.properties and the main resources (``resource_files``,
    under scala/src/main/resources)."""
    with zipfile.ZipFile(compiled_jar) as src, \
            zipfile.ZipFile(out_jar, "w", zipfile.ZIP_DEFLATED) as out:
        names = src.namelist()
        compiled = src.read(MANIFEST).decode("utf-8") if MANIFEST in names else "Manifest-Version: 1.0\n"
        out.writestr(MANIFEST, manifest(compiled, jars))
        for info in src.infolist():
            if info.filename not in (MANIFEST, BUILD_INFO_ENTRY):
                out.writestr(info, src.read(info))
        out.writestr(BUILD_INFO_ENTRY, build_properties(jars))
        for path in resource_files:
            out.write(path, os.path.relpath(path, MAIN_RESOURCES).replace(os.sep, "/"))


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    if home and os.path.exists(os.path.join(home, "bin", "java")):
        return os.path.join(home, "bin", "java")
    java = shutil.which("java")
    if not java:
        raise RuntimeError("Building sliding-window-agg needs a JDK 17 (`java` on PATH).")
    return java


def sources(folder: str) -> list[str]:
    return sorted(glob.glob(os.path.join(folder, "**", "*.scala"), recursive=True))


def scalac(srcs: list[str], classpath: list[str], out: str, jars: str | None = None) -> None:
    jars = jars or spark_jars_dir()
    scala = scala_version(jars)
    compiler = [os.path.join(jars, f"scala-{p}-{scala}.jar") for p in ("compiler", "library", "reflect")]
    missing = [c for c in compiler if not os.path.exists(c)]
    if missing:
        raise RuntimeError(f"pyspark does not ship the Scala compiler expected here: {missing}")
    cp = os.pathsep.join([os.path.join(jars, "*")] + classpath)
    with tempfile.NamedTemporaryFile("w", suffix=".args", delete=False) as args:
        args.write("\n".join(srcs))
    cmd = [_java(), "-Xss8m", "-Xmx2g", "-cp", os.pathsep.join(compiler), "scala.tools.nsc.Main",
           "-usejavacp", "-classpath", cp, "-d", out, *SCALAC_OPTIONS,
           *release_options(scala), "@" + args.name]
    try:
        result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    finally:
        os.unlink(args.name)
    if result.returncode != 0:
        sys.stderr.write(result.stdout)
        # The compiler's messages are printed above; setuptools formats exception texts with
        # str.format, so the raised text must not carry the source's braces.
        raise RuntimeError(f"scalac failed with exit code {result.returncode}: see its errors above")
    if result.stdout.strip():
        sys.stderr.write(result.stdout)


def release_options(scala: str) -> list[str]:
    """Scala 2.12 (Spark 3.5) targets Java 8 bytecode and API; 2.13 (Spark 4) Java 17."""
    release = java_release(".".join(scala.split(".")[:2]))
    return ["-release", release] + (["-target:jvm-1.8"] if release == "8" else [])


def resources(folder: str) -> list[str]:
    return sorted(p for p in glob.glob(os.path.join(folder, "**", "*"), recursive=True)
                  if os.path.isfile(p))


def _newest_mtime(paths: list[str]) -> float:
    return max((os.path.getmtime(p) for p in paths), default=0.0)


def main_sources(jars: str | None = None) -> list[str]:
    """The common sources and the shims of the Spark version of ``jars``."""
    minor = spark_minor(jars)
    if minor not in SPARK_MINORS:
        raise RuntimeError(f"sliding-window-agg builds for Spark {', '.join(SPARK_MINORS)}, "
                           f"not {spark_version(jars)} ({jars or spark_jars_dir()})")
    return sources(MAIN_SOURCES) + [s for f in shim_folders(minor) for s in sources(f)]


def build_main_jar(out_jar: str | None = None, force: bool = False, jars: str | None = None) -> str:
    """Compiles scala/src/main (with the shims of the Spark version of ``jars``, by default the
    installed pyspark's) into ``out_jar`` (by default the package's jar of that version), with its
    resources, unless it is newer than every source and resource."""
    out_jar = out_jar or default_jar(jars)
    srcs = main_sources(jars)
    res = resources(MAIN_RESOURCES)
    if not force and os.path.exists(out_jar) and os.path.getmtime(out_jar) >= _newest_mtime(
            srcs + res + [os.path.abspath(__file__), VERSION_FILE]):
        return out_jar
    os.makedirs(os.path.dirname(out_jar), exist_ok=True)
    compiled, tmp = out_jar + ".classes.jar", out_jar + ".tmp.jar"
    try:
        scalac(srcs, [], compiled, jars)
        package_jar(compiled, tmp, res, jars)
    finally:
        if os.path.exists(compiled):
            os.unlink(compiled)
    os.replace(tmp, out_jar)
    return out_jar


JUNIT_JARS = ["/usr/share/java/junit4.jar", "/usr/share/java/hamcrest-core.jar"]


def junit_classpath() -> list[str]:
    """JUnit 4 from Debian's junit4 package (``apt-get install junit4``)."""
    missing = [j for j in JUNIT_JARS if not os.path.exists(j)]
    if missing:
        raise RuntimeError(
            f"JUnit 4 is missing ({', '.join(missing)}): run `apt-get install -y junit4` "
            "(the project's .ci/run and `make setup` do)."
        )
    return list(JUNIT_JARS)


def build_test_jar(main_jar: str, out_jar: str, jars: str | None = None) -> str:
    """Compiles scala/src/test (JUnit suites and test-only UDAFs, with the test shims of the
    Spark version) against the main jar."""
    srcs = sources(TEST_SOURCES) + [
        s for f in shim_folders(spark_minor(jars), TEST_SHIM_SOURCES) for s in sources(f)]
    if os.path.exists(out_jar) and os.path.getmtime(out_jar) >= _newest_mtime(
            srcs + [main_jar, os.path.abspath(__file__)]):
        return out_jar
    os.makedirs(os.path.dirname(out_jar), exist_ok=True)
    tmp = out_jar + ".tmp.jar"
    scalac(srcs, [main_jar, *junit_classpath()], tmp, jars)
    os.replace(tmp, out_jar)
    return out_jar


def run_junit(main_jar: str, test_jar: str, classes: list[str],
              jars: str | None = None) -> subprocess.CompletedProcess:
    """Runs JUnit 4 suites; returns the finished process (JUnitCore prints OK or failures)."""
    cp = os.pathsep.join([test_jar, main_jar, os.path.join(jars or spark_jars_dir(), "*"), *junit_classpath()])
    cmd = [_java(), "-Xmx2g", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
           "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
           "--add-opens=java.base/java.util=ALL-UNNAMED",
           "-cp", cp, "org.junit.runner.JUnitCore", *classes]
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_classes(test_jar: str) -> list[str]:
    """Names of the JUnit suites in a test jar: top-level classes named *Suite."""
    with zipfile.ZipFile(test_jar) as z:
        names = [n for n in z.namelist() if n.endswith("Suite.class") and "$" not in n]
    return sorted(n[: -len(".class")].replace("/", ".") for n in names)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Builds the jar for one Spark version.")
    parser.add_argument("--spark-jars", help="a Spark jars folder (default: the installed pyspark's)")
    parser.add_argument("out", nargs="?", help="the jar to write (default: the package's jar of that Spark)")
    options = parser.parse_args()
    print(build_main_jar(options.out, force=True, jars=options.spark_jars))
