"""The jar: the one for the running Spark (carried by the installation, or built on first use by
`_jar_cache`), and what the build recorded in it (the Spark version it was compiled against and
the package's version)."""
from __future__ import annotations

import contextlib
import os
import zipfile
from typing import Dict, Optional

from . import _jar_cache
from ._supported import BUILD_INFO_ENTRY, PYSPARK_REQUIREMENT, jar_file_name
from ._supported import SPARK_VERSIONS as SUPPORTED_SPARK_VERSIONS

JAR_COMMAND = "$(python -m sliding_window_agg jar)"
"""Stands for the jar in messages when it is not at hand: the shell command that prints its path
(and builds it first if needed)."""

JARS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars")
"""The jars the installation carries: the release wheel (`make wheel`) carries every version's."""


def spark_minor_of(version: str) -> str:
    """``"4.3"`` for ``"4.3.0"``; raises `UnsupportedSparkVersionError` outside the supported ones."""
    from ._errors import UnsupportedSparkVersionError

    minor = ".".join(version.strip().split(".")[:2])
    if minor not in SUPPORTED_SPARK_VERSIONS:
        raise UnsupportedSparkVersionError(
            f"sliding-window-agg supports Spark {', '.join(SUPPORTED_SPARK_VERSIONS)}, not Spark "
            f"{version}: run it with one of those versions (pip install '{PYSPARK_REQUIREMENT}')."
        )
    return minor


def bundled_jars() -> Dict[str, str]:
    """The jars this installation carries, by Spark minor version."""
    return {minor: os.path.join(JARS_DIR, jar_file_name(minor)) for minor in SUPPORTED_SPARK_VERSIONS
            if os.path.exists(os.path.join(JARS_DIR, jar_file_name(minor)))}


def jar_path(spark_version: Optional[str] = None) -> str:
    """Absolute path of the jar for a Spark version: by default the Spark that pyspark runs
    (``$SPARK_HOME``, else the pyspark package's own Spark).

    The jar is the one the installation carries (``sliding-window-agg_<spark>_<scala>.jar``; a
    wheel built by `make wheel` carries one per supported Spark minor version), else the one
    built earlier for this Spark, else it is built now from the package's Scala sources with
    that Spark's own Scala compiler (once, about a minute, with a message on stderr; kept in
    ``~/.cache/sliding-window-agg`` or ``$SLIDING_WINDOW_AGG_CACHE``). Use it with `--jars` when
    Spark is started by another command than `configure`:

        spark-submit --jars "$(python -m sliding_window_agg jar)" \\
          --conf spark.sql.extensions=org.apache.spark.sql.slidingwindow.SlidingWindowExtensions app.py

    Args:
        spark_version: a Spark version such as ``"3.5.1"`` or ``"4.3"``, for a cluster whose Spark
            is not the local one: its jar must be carried or built earlier (`python -m
            sliding_window_agg jar --spark-jars <that Spark's jars folder>`).

    Raises:
        UnsupportedSparkVersionError: the Spark version is not one the package supports.
        JarUnreadableError: the installation carries a jar for that version that cannot be read,
            or the cache holds one that it cannot build again (another Spark's); a cached jar
            of the local Spark that cannot be read is built again.
        FileNotFoundError: there is no jar for that version and no Spark of that version here
            to build it with.
    """
    from ._local_spark import running_spark_version, spark_jars

    if spark_version is None:
        spark_version = local = running_spark_version()[0]
    else:
        local = None
        with contextlib.suppress(Exception):  # no local Spark: only a jar at hand will do
            local = running_spark_version()[0]
    minor = spark_minor_of(spark_version)
    at_hand = jar_at_hand(minor)
    if at_hand:
        return at_hand
    jars = spark_jars()
    if local is None or jars is None or spark_minor_of(local) != minor:
        _no_broken_cached_jar(minor)
        carried = ", ".join(bundled_jars()) or "none"
        raise FileNotFoundError(
            f"There is no sliding-window-agg jar for Spark {minor} here (this installation carries "
            f"the jars of Spark: {carried}), and it can only build the jar of a Spark it can "
            f"compile against{f' (the local Spark is {local})' if local else ''}. Build it with "
            "`python -m sliding_window_agg jar --spark-jars <the jars folder of a Spark "
            f"{minor}>` (a Spark distribution's jars/ or a pyspark {minor} package's), or run "
            f"`python -m sliding_window_agg jar` where pyspark {minor} is installed, or build "
            "the wheel that carries every supported Spark's jar: `make wheel` in a checkout."
        )
    return _jar_cache.build(jars)


def jar_at_hand(minor: str) -> Optional[str]:
    """The jar of a Spark minor version that needs no build: the one the installation carries,
    else the one built earlier from its sources; None if there is neither (or if the one built
    earlier cannot be read: it is built again). Raises `JarUnreadableError` for a carried jar
    that cannot be read, which the package cannot replace."""
    from ._errors import JarUnreadableError

    carried = os.path.join(JARS_DIR, jar_file_name(minor))
    if not os.path.exists(carried):
        return _jar_cache.cached_jar(minor)
    problem = _jar_cache.jar_problem(carried, needs_record=False)  # sbt's jar, in a checkout, has none
    if problem:
        raise JarUnreadableError(
            f"The sliding-window-agg jar {carried} is not a readable jar ({problem}). This "
            "installation carries it, so the package cannot build it again: reinstall the package "
            "(pip install --force-reinstall sliding-window-agg, or the wheel or checkout it came "
            "from); in a checkout, run `python buildtools/scala_build.py --force`. Deleting the "
            "file also works where the package carries its Scala sources: it then builds the jar "
            "of the local Spark on first use.")
    return carried


def _no_broken_cached_jar(minor: str) -> None:
    """Raises `JarUnreadableError` when the cache holds an unreadable jar of a Spark minor version
    that cannot be built here (not the local Spark's): which file to delete and how to build it."""
    from ._errors import JarUnreadableError

    cached = _jar_cache.cache_path(minor)
    problem = cached and os.path.exists(cached) and _jar_cache.jar_problem(cached)
    if problem:
        raise JarUnreadableError(
            f"The sliding-window-agg jar {cached} is not a readable jar ({problem}), and only a "
            f"Spark {minor} can build it again: delete it and build it again: python -m "
            f"sliding_window_agg jar --spark-jars <the jars folder of a Spark {minor}> (a Spark "
            f"distribution's jars/ or a pyspark {minor} package's).")


def jar_path_or_placeholder() -> str:
    """The jar for messages: `jar_path()` when the jar is at hand (carried or built earlier),
    without building it, else the command that prints it."""
    from ._local_spark import running_spark_version

    try:
        minor = spark_minor_of(running_spark_version()[0])
        return jar_at_hand(minor) or JAR_COMMAND
    except Exception:  # no local Spark, or a carried jar that cannot be read: the command says
        return JAR_COMMAND


def build_info(jar: Optional[str] = None) -> Dict[str, str]:
    """The properties the build recorded in the jar (empty for a jar that carries none).

    Raises:
        JarUnreadableError: the jar is not a zip file that can be read.
    """
    from ._errors import JarUnreadableError

    jar = jar or jar_path()
    try:
        with zipfile.ZipFile(jar) as z:
            text = z.read(BUILD_INFO_ENTRY).decode("utf-8")
    except KeyError:
        return {}
    except (zipfile.BadZipFile, EOFError) as e:
        raise JarUnreadableError(
            f"The sliding-window-agg jar {jar} is not a readable jar ({type(e).__name__}: {e}): "
            "use the jar that `python -m sliding_window_agg jar` prints, which it builds again "
            "if needed.") from e
    info = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            info[key.strip()] = value.strip()
    return info


def built_for_spark_version(jar: Optional[str] = None) -> Optional[str]:
    """The Spark (pyspark) version the jar was compiled against, as recorded in the jar at build
    time, or None for a jar that carries no record."""
    return build_info(jar).get("spark.version")
