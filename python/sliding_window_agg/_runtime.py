"""Probes of the running Spark: which session a call should check, whether that session has the
extension, whether this process's driver can still load the jar; and the error that says how to
load the extension when it is missing."""
from __future__ import annotations

import os
from typing import Optional

from pyspark.sql import SparkSession

from ._errors import (
    HOW_TO_LOAD,
    HOW_TO_LOAD_CONNECT,
    HOW_TO_LOAD_STARTED_DRIVER,
    ExtensionNotLoadedError,
)
from ._jar import jar_path_or_placeholder
from ._supported import EXTENSION_CLASS


def current_session() -> Optional[SparkSession]:
    """The session a column function checks for the extension, or None when there is none.

    That is the thread's active session, else the process's default session (the one
    `getOrCreate()` made): a thread of a pool or of a web server has no active session of its
    own, yet PySpark's column functions work there, and so must ours.
    `SparkSession.active()` does exactly this, for classic and Spark Connect sessions.
    """
    try:
        return SparkSession.active()
    except Exception:  # no session (NO_ACTIVE_OR_DEFAULT_SESSION), or no session machinery
        return None


def driver_started_without_jar() -> bool:
    """Whether a Spark driver JVM already runs for this process and cannot load the extension.

    pyspark passes ``spark.jars`` to the JVM it launches, which then has the jar on its class
    path. A JVM started earlier (spark-submit and the pyspark shell start it before the Python
    code runs) only ships ``spark.jars`` to executors, so the driver could not load the
    extension class and every sliding_window call would fail as an unknown function.
    """
    from pyspark import SparkContext

    if SparkContext._jvm is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
        return False  # pyspark will launch the JVM with the builder's spark.jars
    try:
        if SparkContext._jvm is None:
            SparkContext._ensure_initialized()  # connects to the JVM that spark-submit started
        return not SparkContext._jvm.org.apache.spark.util.Utils.classIsLoadable(EXTENSION_CLASS)
    except Exception:  # pragma: no cover - no usable JVM: leave it to Spark to report
        return False


def lists_extension(spark: SparkSession) -> bool:
    """Whether `spark.sql.extensions` of `spark` names the extension class."""
    extensions = spark.conf.get("spark.sql.extensions", "") or ""
    return EXTENSION_CLASS in [e.strip() for e in extensions.split(",")]


def is_loaded(spark: SparkSession) -> bool:
    """Whether `spark` was started with the extension.

    True when `spark.sql.extensions` lists `EXTENSION_CLASS` and its functions are registered
    (the driver could load its classes).
    """
    return lists_extension(spark) and spark.catalog.functionExists("sliding_window")


def is_connect_session(spark: SparkSession) -> bool:
    """Whether `spark` is a Spark Connect client session."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def require_extension(spark: Optional[SparkSession]) -> None:
    """Raises :class:`ExtensionNotLoadedError`, saying how to load it, if ``spark`` lacks it.

    Nothing is checked without a session (``None``): Spark reports the unknown function when
    the query is analysed.
    """
    if spark is None or is_loaded(spark):
        return
    if is_connect_session(spark):
        how = HOW_TO_LOAD_CONNECT
    elif lists_extension(spark):
        how = ("spark.sql.extensions names it, but the driver could not load its classes: "
               "the jar is not on the driver's class path. " + HOW_TO_LOAD_STARTED_DRIVER)
    else:
        how = HOW_TO_LOAD
    raise ExtensionNotLoadedError(
        "The sliding-window-agg extension is not loaded in this Spark session. "
        + how.format(jar=jar_path_or_placeholder(), ext=EXTENSION_CLASS)
    )
