"""The bundled jar: where it is, the extension class it holds, and what the build recorded in it
(the Spark version it was compiled against and the package's version)."""
from __future__ import annotations

import os
import zipfile
from typing import Dict, Optional

EXTENSION_CLASS = "org.apache.spark.sql.slidingwindow.SlidingWindowExtensions"
"""The value for `spark.sql.extensions`: the class that registers `sliding_window` and
`batch_window` and the rules and operators behind them."""

# Written into the jar by buildtools/scala_build.py (pip install, pip wheel, editable installs
# and the test suite's rebuild all go through build_main_jar) and by build.sbt:
# "spark.version=<version of the Spark jars it was compiled against>" and
# "version=<the package's version>".
BUILD_INFO_ENTRY = "sliding-window-agg.properties"

PLACEHOLDER = "<sliding-window-agg.jar>"
"""Stands for the jar in messages when the jar itself is missing."""

SUPPORTED_SPARK_VERSIONS = ("3.5", "4.0", "4.1", "4.2", "4.3")
"""The Spark minor versions the package carries a jar for."""

SCALA_BINARY = {"3.5": "2.12", "4.0": "2.13", "4.1": "2.13", "4.2": "2.13", "4.3": "2.13"}
"""The Scala of each supported Spark's jars (Spark 3.5 is built with Scala 2.12)."""

JARS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars")


def jar_file_name(spark_minor: str) -> str:
    """The file name of the jar for a Spark minor version: ``sliding-window-agg_4.3_2.13.jar``."""
    return f"sliding-window-agg_{spark_minor}_{SCALA_BINARY[spark_minor]}.jar"


def spark_minor_of(version: str) -> str:
    """``"4.3"`` for ``"4.3.0"``; raises `UnsupportedSparkVersionError` outside the supported ones."""
    from ._errors import UnsupportedSparkVersionError

    minor = ".".join(version.strip().split(".")[:2])
    if minor not in SUPPORTED_SPARK_VERSIONS:
        raise UnsupportedSparkVersionError(
            f"sliding-window-agg supports Spark {', '.join(SUPPORTED_SPARK_VERSIONS)}, not Spark "
            f"{version}: run it with one of those versions (pip install 'pyspark>=3.5,<4.4')."
        )
    return minor


def bundled_jars() -> Dict[str, str]:
    """The jars this installation carries, by Spark minor version."""
    return {minor: os.path.join(JARS_DIR, jar_file_name(minor)) for minor in SUPPORTED_SPARK_VERSIONS
            if os.path.exists(os.path.join(JARS_DIR, jar_file_name(minor)))}


def jar_path(spark_version: Optional[str] = None) -> str:
    """Absolute path of the bundled jar for a Spark version: by default the Spark that pyspark
    runs (``$SPARK_HOME``, else the pyspark package's own Spark).

    The package carries one jar per supported Spark minor version (3.5, 4.0, 4.1, 4.2, 4.3),
    named ``sliding-window-agg_<spark>_<scala>.jar``. Use it with `--jars` when Spark is started
    by another command than `configure`:

        spark-submit --jars "$(python -c 'import sliding_window_agg as s; print(s.jar_path())')" \\
          --conf spark.sql.extensions=org.apache.spark.sql.slidingwindow.SlidingWindowExtensions app.py

    Args:
        spark_version: a Spark version such as ``"3.5.1"`` or ``"4.3"``, for a cluster whose Spark
            is not the local one.

    Raises:
        UnsupportedSparkVersionError: the Spark version is not one the package supports.
        FileNotFoundError: this installation carries no jar for that version (a source install
            builds only the jar of the pyspark it was built with).
    """
    if spark_version is None:
        from ._spark_version import running_spark_version

        spark_version = running_spark_version()[0]
    minor = spark_minor_of(spark_version)
    path = os.path.join(JARS_DIR, jar_file_name(minor))
    if not os.path.exists(path):
        carried = ", ".join(bundled_jars()) or "none"
        raise FileNotFoundError(
            f"The sliding-window-agg jar for Spark {minor} is missing at {path} (this installation "
            f"carries the jars of Spark: {carried}). Install the released wheel, which carries "
            "every supported version's jar, or build it: python buildtools/scala_build.py "
            "--spark-jars <that Spark's jars folder>."
        )
    return path


def jar_path_or_placeholder() -> str:
    """`jar_path()`, or a placeholder for messages when the jar is missing."""
    try:
        return jar_path()
    except FileNotFoundError:
        return PLACEHOLDER


def build_info(jar: Optional[str] = None) -> Dict[str, str]:
    """The properties the build recorded in the jar (empty for a jar that carries none)."""
    jar = jar or jar_path()
    try:
        with zipfile.ZipFile(jar) as z:
            text = z.read(BUILD_INFO_ENTRY).decode("utf-8")
    except KeyError:
        return {}
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
