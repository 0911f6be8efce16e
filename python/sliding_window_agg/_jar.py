"""The bundled jar: where it is, the extension class it holds, and what the build recorded in it
(the Spark version it was compiled against and the package's version)."""
from __future__ import annotations

import os
import zipfile
from typing import Dict, Optional

EXTENSION_CLASS = "org.apache.spark.sql.slidingwindow.SlidingWindowExtensions"
"""The value for `spark.sql.extensions`: the class that registers `sliding_window` and
`batch_window` and the rules and operators behind them."""

JAR_NAME = "sliding-window-agg.jar"

# Written into the jar by buildtools/scala_build.py (pip install, pip wheel, editable installs
# and the test suite's rebuild all go through build_main_jar) and by build.sbt:
# "spark.version=<version of the Spark jars it was compiled against>" and
# "version=<the package's version>".
BUILD_INFO_ENTRY = "sliding-window-agg.properties"

PLACEHOLDER = "<sliding-window-agg.jar>"
"""Stands for the jar in messages when the jar itself is missing."""


def jar_path() -> str:
    """Absolute path of the jar bundled in this package.

    Use it with `--jars` when Spark is started by another command than `configure`:

        spark-submit --jars "$(python -c 'import sliding_window_agg as s; print(s.jar_path())')" \\
          --conf spark.sql.extensions=org.apache.spark.sql.slidingwindow.SlidingWindowExtensions app.py

    Raises:
        FileNotFoundError: the jar is missing; reinstalling the package builds and bundles it.
    """
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars", JAR_NAME)
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"The sliding-window-agg jar is missing at {path}; reinstall the package "
            "(pip install sliding-window-agg), which builds and bundles it."
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
