"""`configure`: adding the jar and the extension to a session builder."""
from __future__ import annotations

import os
import re
import warnings
from typing import Optional

from pyspark.sql import SparkSession

from ._errors import HOW_TO_LOAD_STARTED_DRIVER, ConnectClientOnlyError, ExtensionNotLoadedError
from ._jar import jar_path
from ._supported import EXTENSION_CLASS
from ._runtime import driver_started_without_jar
from ._local_spark import is_connect_client_only
from ._spark_version import check_spark_version


def _append(existing: Optional[str], value: str) -> str:
    items = [v.strip() for v in (existing or "").split(",") if v.strip()]
    if value not in items:
        items.append(value)
    return ",".join(items)


def _connect_server_url(builder: SparkSession.Builder) -> Optional[str]:
    """The sc:// address when the builder will connect to a separate Spark Connect server."""
    options = getattr(builder, "_options", {})
    url = options.get("spark.remote", os.environ.get("SPARK_REMOTE"))
    if url and str(url).startswith("sc://"):
        return str(url)
    return None


def _starts_local_connect_server(builder: SparkSession.Builder) -> bool:
    """Whether the builder starts a Spark Connect server in this process (`remote("local[n]")`)."""
    options = getattr(builder, "_options", {})
    url = options.get("spark.remote", os.environ.get("SPARK_REMOTE"))
    return bool(url) and str(url).startswith("local")


def _ignore_connect_warnings_for(options: dict) -> None:
    """Hides the warnings a local Connect session gives about the jar and extension configure() set.

    pyspark starts the in-process server with every option of the builder, then sets the same
    options again on the client's session; the server refuses `spark.jars` and the static
    `spark.sql.extensions` there (`Failed to set spark.jars to Some(...)`, CANNOT_MODIFY_CONFIG),
    though it was started with both. Only these two messages with these values are hidden.
    """
    for key in ("spark.jars", "spark.sql.extensions"):
        if options.get(key):
            warnings.filterwarnings(
                "ignore", message=re.escape(f"Failed to set {key} to Some({options[key]}) due to "),
                category=UserWarning)


def configure(builder: SparkSession.Builder, *, check_version: bool = True) -> SparkSession.Builder:
    """Adds the jar of the running Spark (built on first use, see `jar_path`) and the extension to a
    session builder and returns it.

    Settings already on the builder are kept: the jar is appended to `spark.jars` and the
    extension to `spark.sql.extensions`, each at most once. The extension is a static setting,
    so call `configure` before `getOrCreate()`. A session that already runs with the extension is
    returned by `getOrCreate()` as it is.

    With `builder.remote("sc://...")` (a separate Spark Connect server) the jar and the
    extension must be given to the server when it starts; a client cannot load them, so the
    builder is returned unchanged and `sliding_window` reports a server that lacks the
    extension. `builder.remote("local[...]")` starts a server in this process, which gets
    the jar and the extension as for a classic session.

    Args:
        builder: the session builder, such as `SparkSession.builder.master("local[2]")`.
        check_version: first check that the jar was built for the Spark that pyspark will
            start (same major.minor version, see `check_spark_version`).

    Returns:
        The same builder.

    Raises:
        ConnectClientOnlyError: only the Spark Connect client (`pyspark-client`) is installed:
            the jar and the extension belong on the Connect server.
        UnsupportedSparkVersionError: the running Spark is not 3.5, 4.0, 4.1, 4.2 or 4.3.
        SparkVersionMismatchError: the jar was built for another Spark minor version.
        JarUnreadableError: the jar the installation carries for the running Spark cannot be
            read (a cached jar built on first use that cannot be read is built again).
        ExtensionNotLoadedError: this process already runs a Spark driver started without the
            jar (spark-submit or the pyspark shell without `--jars`, or an earlier session of
            this process created without `configure`): its JVM cannot load the jar any more.

    Example:
        ```python
        spark = configure(SparkSession.builder.master("local[2]")).getOrCreate()
        ```
    """
    if _connect_server_url(builder) is not None:
        return builder
    if is_connect_client_only():
        raise ConnectClientOnlyError(
            "Only the Spark Connect client (pyspark-client) is installed here, so there is no Spark "
            "to start and nothing for configure() to load. The jar and the extension belong on the "
            "Spark Connect server: start it with --jars <the jar for its Spark version> --conf "
            f"spark.sql.extensions={EXTENSION_CLASS} (`python -m sliding_window_agg jar`, run where "
            "sliding-window-agg is installed beside the server's Spark, prints the jar), then "
            "connect with "
            "SparkSession.builder.remote('sc://<host>:15002').getOrCreate(): sliding_window and "
            "batch_window work from this client."
        )
    jar = jar_path()
    if check_version:
        check_spark_version(jar=jar)
    if driver_started_without_jar():
        raise ExtensionNotLoadedError(
            "This Python process runs in a Spark driver that was started before configure() "
            "(spark-submit, the pyspark shell, or an earlier session started without the jar), "
            "and the jar is not on its class path: configure() can no longer add it there. "
            + HOW_TO_LOAD_STARTED_DRIVER.format(jar=jar, ext=EXTENSION_CLASS)
        )
    options = getattr(builder, "_options", {})
    builder = builder.config("spark.jars", _append(options.get("spark.jars"), jar)).config(
        "spark.sql.extensions", _append(options.get("spark.sql.extensions"), EXTENSION_CLASS)
    )
    if _starts_local_connect_server(builder):
        _ignore_connect_warnings_for(getattr(builder, "_options", {}))
    return builder
