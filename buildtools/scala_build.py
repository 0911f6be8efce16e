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
TEST_SOURCES = os.path.join(ROOT, "scala", "src", "test", "scala")
# Files the jar carries as they are (the error conditions), under their path in this folder.
MAIN_RESOURCES = os.path.join(ROOT, "scala", "src", "main", "resources")
JAR_NAME = "sliding-window-agg.jar"
# The one place the version is written (pyproject.toml, build.sbt and the package read it too).
VERSION_FILE = os.path.join(ROOT, "python", "sliding_window_agg", "VERSION")
# What the package reads back from the jar (sliding_window_agg._jar.BUILD_INFO_ENTRY).
BUILD_INFO_ENTRY = "sliding-window-agg.properties"
MANIFEST = "META-INF/MANIFEST.MF"
SCALAC_OPTIONS = ["-deprecation", "-feature", "-release", "17", "-encoding", "UTF-8"]


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


def spark_version() -> str:
    """The version of the Spark jars the build compiles against (recorded in the jar)."""
    for name in sorted(os.listdir(spark_jars_dir())):
        match = re.fullmatch(r"spark-core_[\d.]+-(\d+\.\d+\.\d+.*)\.jar", name)
        if match:
            return match.group(1)
    import pyspark

    return pyspark.__version__


def package_version() -> str:
    """The package's version, from python/sliding_window_agg/VERSION."""
    with open(VERSION_FILE, encoding="utf-8") as f:
        return f.read().strip()


def build_properties() -> str:
    """The text of sliding-window-agg.properties: the Spark version the jar is compiled against
    (checked by sliding_window_agg.check_spark_version) and the package's version."""
    return f"spark.version={spark_version()}\nversion={package_version()}\n"


def manifest(compiled: str) -> str:
    """The manifest scalac wrote, with the jar's title, version and Spark version added."""
    lines = [line for line in compiled.splitlines() if line.strip()
             and not line.startswith(("Implementation-Title:", "Implementation-Version:", "Spark-Version:"))]
    lines += ["Implementation-Title: sliding-window-agg", f"Implementation-Version: {package_version()}",
              f"Spark-Version: {spark_version()}"]
    return "\n".join(lines) + "\n\n"


def package_jar(compiled_jar: str, out_jar: str, resource_files: list[str] = ()) -> None:
    """Writes ``out_jar``: the classes scalac compiled into ``compiled_jar``, its manifest with the
    versions added, sliding-window-agg.properties and the main resources (``resource_files``,
    under scala/src/main/resources)."""
    with zipfile.ZipFile(compiled_jar) as src, \
            zipfile.ZipFile(out_jar, "w", zipfile.ZIP_DEFLATED) as out:
        names = src.namelist()
        compiled = src.read(MANIFEST).decode("utf-8") if MANIFEST in names else "Manifest-Version: 1.0\n"
        out.writestr(MANIFEST, manifest(compiled))
        for info in src.infolist():
            if info.filename not in (MANIFEST, BUILD_INFO_ENTRY):
                out.writestr(info, src.read(info))
        out.writestr(BUILD_INFO_ENTRY, build_properties())
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


def scalac(srcs: list[str], classpath: list[str], out: str) -> None:
    jars = spark_jars_dir()
    compiler = [os.path.join(jars, f"scala-{p}-2.13.18.jar") for p in ("compiler", "library", "reflect")]
    missing = [c for c in compiler if not os.path.exists(c)]
    if missing:
        raise RuntimeError(f"pyspark does not ship the Scala compiler expected here: {missing}")
    cp = os.pathsep.join([os.path.join(jars, "*")] + classpath)
    with tempfile.NamedTemporaryFile("w", suffix=".args", delete=False) as args:
        args.write("\n".join(srcs))
    cmd = [_java(), "-Xss8m", "-Xmx2g", "-cp", os.pathsep.join(compiler), "scala.tools.nsc.Main",
           "-usejavacp", "-classpath", cp, "-d", out, *SCALAC_OPTIONS, "@" + args.name]
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


def resources(folder: str) -> list[str]:
    return sorted(p for p in glob.glob(os.path.join(folder, "**", "*"), recursive=True)
                  if os.path.isfile(p))


def _newest_mtime(paths: list[str]) -> float:
    return max((os.path.getmtime(p) for p in paths), default=0.0)


def build_main_jar(out_jar: str, force: bool = False) -> str:
    """Compiles scala/src/main into ``out_jar``, with its resources, unless it is newer than every
    source and resource."""
    srcs = sources(MAIN_SOURCES)
    res = resources(MAIN_RESOURCES)
    if not force and os.path.exists(out_jar) and os.path.getmtime(out_jar) >= _newest_mtime(
            srcs + res + [os.path.abspath(__file__), VERSION_FILE]):
        return out_jar
    os.makedirs(os.path.dirname(out_jar), exist_ok=True)
    compiled, tmp = out_jar + ".classes.jar", out_jar + ".tmp.jar"
    try:
        scalac(srcs, [], compiled)
        package_jar(compiled, tmp, res)
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


def build_test_jar(main_jar: str, out_jar: str) -> str:
    """Compiles scala/src/test (JUnit suites and test-only UDAFs) against the main jar."""
    srcs = sources(TEST_SOURCES)
    if os.path.exists(out_jar) and os.path.getmtime(out_jar) >= _newest_mtime(
            srcs + [main_jar, os.path.abspath(__file__)]):
        return out_jar
    os.makedirs(os.path.dirname(out_jar), exist_ok=True)
    tmp = out_jar + ".tmp.jar"
    scalac(srcs, [main_jar, *junit_classpath()], tmp)
    os.replace(tmp, out_jar)
    return out_jar


def run_junit(main_jar: str, test_jar: str, classes: list[str]) -> subprocess.CompletedProcess:
    """Runs JUnit 4 suites; returns the finished process (JUnitCore prints OK or failures)."""
    cp = os.pathsep.join([test_jar, main_jar, os.path.join(spark_jars_dir(), "*"), *junit_classpath()])
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
    target = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        ROOT, "python", "sliding_window_agg", "jars", JAR_NAME)
    print(build_main_jar(target, force=True))
