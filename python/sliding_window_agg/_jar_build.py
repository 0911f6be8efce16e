"""Compiling the jar for one Spark version, offline, with the Scala compiler that Spark ships.

A Spark's ``jars`` folder (a pyspark package's, or a Spark distribution's) holds every Spark jar
and ``scala-compiler``, so ``scalac`` runs as ``java scala.tools.nsc.Main`` against it: no Maven
repository is needed. The sources are a ``main`` folder with ``scala/`` (every Spark),
``scala-shims/spark-<a>[-<b>]/`` (the code of the Spark minor versions a to b) and
``resources/``: ``scala/src/main`` in a checkout, ``scala-src/`` in an installed package.

Used by the package to build the jar of the installed Spark on first use (`_jar_cache`), and by
buildtools/scala_build.py for installs, wheels and the tests. This module imports nothing from
the package but `_supported`, so buildtools loads it without pyspark.
"""
from __future__ import annotations

import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

from ._supported import BUILD_INFO_ENTRY, SPARK_VERSIONS, jar_file_name

MANIFEST = "META-INF/MANIFEST.MF"
SCALAC_OPTIONS = ["-deprecation", "-feature", "-encoding", "UTF-8"]


def spark_version(jars: str) -> str:
    """The version of the Spark whose ``jars`` folder this is (from its ``spark-core`` jar)."""
    for name in sorted(os.listdir(jars)):
        match = re.fullmatch(r"spark-core_[\d.]+-(\d+\.\d+\.\d+.*)\.jar", name)
        if match:
            return match.group(1)
    raise RuntimeError(f"{jars} holds no spark-core jar: not the jars folder of a Spark")


def spark_minor(jars: str) -> str:
    """"4.3" for Spark 4.3.0."""
    return ".".join(spark_version(jars).split(".")[:2])


def scala_version(jars: str) -> str:
    """The version of the Scala compiler (and library) shipped with the Spark jars."""
    for name in os.listdir(jars):
        match = re.fullmatch(r"scala-compiler-(\d+\.\d+\.\d+)\.jar", name)
        if match:
            return match.group(1)
    raise RuntimeError(f"no scala-compiler-*.jar in {jars}: the jar is compiled with the Scala "
                       "compiler that Spark ships (pyspark packages and Spark distributions carry it)")


def scala_binary(jars: str) -> str:
    return ".".join(scala_version(jars).split(".")[:2])


def jar_name(jars: str) -> str:
    """The name of the jar for the Spark of ``jars``: sliding-window-agg_4.3_2.13.jar."""
    return jar_file_name(supported_minor(jars))


def supported_minor(jars: str) -> str:
    minor = spark_minor(jars)
    if minor not in SPARK_VERSIONS:
        raise RuntimeError(f"sliding-window-agg builds for Spark {', '.join(SPARK_VERSIONS)}, "
                           f"not {spark_version(jars)} ({jars})")
    return minor


def _minor_key(minor: str) -> tuple:
    return tuple(int(p) for p in minor.split("."))


def shim_folders(minor: str, shims: str) -> list[str]:
    """The shim folders compiled for a Spark minor version: every ``spark-<a>[-<b>]`` of
    ``shims`` whose range holds it."""
    found = []
    for name in sorted(os.listdir(shims)) if os.path.isdir(shims) else []:
        match = re.fullmatch(r"spark-(\d+\.\d+)(?:-(\d+\.\d+))?", name)
        if not match:
            raise RuntimeError(f"unexpected shim folder {name}: name it spark-<a> or spark-<a>-<b>")
        low, high = match.group(1), match.group(2) or match.group(1)
        if _minor_key(low) <= _minor_key(minor) <= _minor_key(high):
            found.append(os.path.join(shims, name))
    return found


def sources(folder: str) -> list[str]:
    return sorted(glob.glob(os.path.join(folder, "**", "*.scala"), recursive=True))


def resources(folder: str) -> list[str]:
    return sorted(p for p in glob.glob(os.path.join(folder, "**", "*"), recursive=True)
                  if os.path.isfile(p))


def files_digest(paths: list[str], root: str) -> str:
    """The SHA-256 of files, in the order given: each one's name (from ``root``) and bytes. What
    a build reads, to tell whether an earlier build read the same (the first-use cache's folders,
    the checkout's jars)."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(os.path.relpath(path, root).replace(os.sep, "/").encode() + b"\0")
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


def main_sources(main: str, jars: str) -> list[str]:
    """The common sources of ``main`` and the shims of the Spark version of ``jars``."""
    return sources(os.path.join(main, "scala")) + [
        s for f in shim_folders(supported_minor(jars), os.path.join(main, "scala-shims"))
        for s in sources(f)]


def main_inputs(main: str, jars: str) -> list[str]:
    """Every file the jar of ``jars``'s Spark is built from: its sources and the resources."""
    return main_sources(main, jars) + resources(os.path.join(main, "resources"))


def java() -> str:
    home = os.environ.get("JAVA_HOME")
    if home and os.path.exists(os.path.join(home, "bin", "java")):
        return os.path.join(home, "bin", "java")
    found = shutil.which("java")
    if not found:
        raise RuntimeError("Building the sliding-window-agg jar needs a JDK 17 (`java` on PATH or "
                           "JAVA_HOME), as running Spark does.")
    return found


def java_release(scala_binary_version: str) -> str:
    """The Java bytecode the jar targets: Spark 3.5 (Scala 2.12) clusters may run Java 8."""
    return "8" if scala_binary_version == "2.12" else "17"


def release_options(scala: str) -> list[str]:
    """Scala 2.12 (Spark 3.5) targets Java 8 bytecode and API; 2.13 (Spark 4) Java 17."""
    release = java_release(".".join(scala.split(".")[:2]))
    return ["-release", release] + (["-target:jvm-1.8"] if release == "8" else [])


def scalac(srcs: list[str], classpath: list[str], out: str, jars: str) -> None:
    """Compiles ``srcs`` against the Spark jars and ``classpath`` into the jar ``out``."""
    scala = scala_version(jars)
    compiler = [os.path.join(jars, f"scala-{p}-{scala}.jar") for p in ("compiler", "library", "reflect")]
    missing = [c for c in compiler if not os.path.exists(c)]
    if missing:
        raise RuntimeError(f"the Spark in {jars} does not ship the Scala compiler expected: {missing}")
    cp = os.pathsep.join([os.path.join(jars, "*")] + classpath)
    with tempfile.NamedTemporaryFile("w", suffix=".args", delete=False) as args:
        args.write("\n".join(srcs))
    # C1 only: a compile of this size ends before C2's compiles of the compiler repay themselves
    # (the main jar: 12 s of CPU and 8 s on two cores, where the default JIT took 30 s and 16 s).
    cmd = [java(), "-Xss8m", "-Xmx2g", "-XX:TieredStopAtLevel=1", "-cp", os.pathsep.join(compiler), "scala.tools.nsc.Main",
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


def build_properties(jars: str, version: str) -> str:
    """The text of sliding-window-agg.properties: the Spark version the jar is compiled against
    (checked by sliding_window_agg.check_spark_version) and the package's version."""
    return f"spark.version={spark_version(jars)}\nversion={version}\n"


def manifest(compiled: str, jars: str, version: str) -> str:
    """The manifest scalac wrote, with the jar's title, version and Spark version added."""
    lines = [line for line in compiled.splitlines() if line.strip()
             and not line.startswith(("Implementation-Title:", "Implementation-Version:", "Spark-Version:"))]
    lines += ["Implementation-Title: sliding-window-agg", f"Implementation-Version: {version}",
              f"Spark-Version: {spark_version(jars)}"]
    return "\n".join(lines) + "\n\n"


def package_jar(compiled_jar: str, out_jar: str, resources_dir: str, jars: str, version: str) -> None:
    """Writes ``out_jar``: the classes scalac compiled into ``compiled_jar``, its manifest with the
    versions added, sliding-window-agg.properties and the files of ``resources_dir``."""
    with zipfile.ZipFile(compiled_jar) as src, \
            zipfile.ZipFile(out_jar, "w", zipfile.ZIP_DEFLATED) as out:
        names = src.namelist()
        compiled = src.read(MANIFEST).decode("utf-8") if MANIFEST in names else "Manifest-Version: 1.0\n"
        out.writestr(MANIFEST, manifest(compiled, jars, version))
        for info in src.infolist():
            if info.filename not in (MANIFEST, BUILD_INFO_ENTRY):
                out.writestr(info, src.read(info))
        out.writestr(BUILD_INFO_ENTRY, build_properties(jars, version))
        for path in resources(resources_dir):
            out.write(path, os.path.relpath(path, resources_dir).replace(os.sep, "/"))


def build_jar(main: str, jars: str, out_jar: str, version: str) -> str:
    """Compiles the sources of ``main`` for the Spark of ``jars`` into ``out_jar``, written whole
    or not at all (another process may read it meanwhile)."""
    srcs = main_sources(main, jars)
    os.makedirs(os.path.dirname(out_jar) or ".", exist_ok=True)
    fd, compiled = tempfile.mkstemp(suffix=".classes.jar", dir=os.path.dirname(out_jar) or ".")
    os.close(fd)
    tmp = compiled[: -len(".classes.jar")] + ".tmp.jar"
    try:
        scalac(srcs, [], compiled, jars)
        package_jar(compiled, tmp, os.path.join(main, "resources"), jars, version)
        os.replace(tmp, out_jar)
    finally:
        for path in (compiled, tmp):
            if os.path.exists(path):
                os.unlink(path)
    return out_jar
