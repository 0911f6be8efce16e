"""Loading the extension into a Spark session: the bundled jar and the extension class."""
from __future__ import annotations

import os
from typing import Optional

from pyspark.sql import SparkSession

EXTENSION_CLASS = "org.apache.spark.sql.slidingwindow.SlidingWindowExtensions"
_JAR_NAME = "sliding-window-agg.jar"

HOW_TO_LOAD = (
    "Create the session with sliding_window_agg.configure(SparkSession.builder).getOrCreate(), "
    "or start Spark with --jars {jar} --conf spark.sql.extensions={ext}. The extension must be "
    "set before the session starts: spark.sql.extensions is a static configuration."
)


class ExtensionNotLoadedError(RuntimeError):
    """The Spark session was started without the sliding-window-agg extension."""


def jar_path() -> str:
    """Absolute path of the jar bundled in this package."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars", _JAR_NAME)
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"The sliding-window-agg jar is missing at {path}; reinstall the package "
            "(pip install sliding-window-agg), which builds and bundles it."
        )
    return path


def _append(existing: Optional[str], value: str) -> str:
    items = [v.strip() for v in (existing or "").split(",") if v.strip()]
    if value not in items:
        items.append(value)
    return ",".join(items)


def configure(builder: SparkSession.Builder) -> SparkSession.Builder:
    """Adds the bundled jar and the extension to a session builder and returns it.

    Settings already on the builder are kept: the jar is appended to ``spark.jars`` and the
    extension to ``spark.sql.extensions``.

    >>> spark = configure(SparkSession.builder.master("local[2]")).getOrCreate()
    """
    options = getattr(builder, "_options", {})
    return builder.config("spark.jars", _append(options.get("spark.jars"), jar_path())).config(
        "spark.sql.extensions", _append(options.get("spark.sql.extensions"), EXTENSION_CLASS)
    )


def is_loaded(spark: SparkSession) -> bool:
    """Whether ``spark`` was started with the extension."""
    extensions = spark.conf.get("spark.sql.extensions", "") or ""
    return EXTENSION_CLASS in [e.strip() for e in extensions.split(",")]


def require_extension(spark: Optional[SparkSession]) -> None:
    """Raises :class:`ExtensionNotLoadedError`, saying how to load it, if ``spark`` lacks it."""
    if spark is not None and not is_loaded(spark):
        try:
            jar = jar_path()
        except FileNotFoundError:
            jar = "<sliding-window-agg.jar>"
        raise ExtensionNotLoadedError(
            "The sliding-window-agg extension is not loaded in this Spark session. "
            + HOW_TO_LOAD.format(jar=jar, ext=EXTENSION_CLASS)
        )


def active_session() -> Optional[SparkSession]:
    try:
        return SparkSession.getActiveSession()
    except Exception:  # pragma: no cover - no session machinery available
        return None
