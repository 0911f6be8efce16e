"""Loading the extension into a Spark session: the bundled jar, the extension class and the
check that the jar was built for the running Spark."""
from __future__ import annotations

import os
import re
import warnings
import zipfile
from typing import Optional, Tuple

from pyspark.sql import SparkSession

EXTENSION_CLASS = "org.apache.spark.sql.slidingwindow.SlidingWindowExtensions"
"""The value for `spark.sql.extensions`: the class that registers `sliding_window` and
`batch_window` and the rules and operators behind them."""
_JAR_NAME = "sliding-window-agg.jar"
# Written into the jar by buildtools/scala_build.py (pip install, pip wheel, editable installs
# and the test suite's rebuild all go through build_main_jar): "spark.version=<version of the
# Spark jars it was compiled against>".
_BUILD_INFO_ENTRY = "sliding-window-agg.properties"

HOW_TO_LOAD = (
    "Create the session with sliding_window_agg.configure(SparkSession.builder).getOrCreate(), "
    "or start Spark with --jars {jar} --conf spark.sql.extensions={ext}. The extension must be "
    "set before the session starts: spark.sql.extensions is a static configuration."
)

HOW_TO_LOAD_STARTED_DRIVER = (
    "Give the jar and the extension to the command that starts Spark: spark-submit (or pyspark) "
    "--jars {jar} --conf spark.sql.extensions={ext}, or call "
    "sliding_window_agg.configure(SparkSession.builder) before anything starts Spark."
)

HOW_TO_LOAD_CONNECT = (
    "This is a Spark Connect session: the jar and the extension must be loaded by the Spark "
    "Connect server, not by the client. Start the server with --jars {jar} --conf "
    "spark.sql.extensions={ext} (for example $SPARK_HOME/sbin/start-connect-server.sh --jars "
    "{jar} --conf spark.sql.extensions={ext}); `python -c \"import sliding_window_agg as s; "
    "print(s.jar_path())\"` prints where pip put the jar."
)


class ExtensionNotLoadedError(RuntimeError):
    """The Spark session was started without the sliding-window-agg extension.

    `sliding_window`, `batch_window` and `sliding_window_agg` raise it. The message says how to
    load the extension for that kind of session: with `configure` before the session starts,
    with `--jars` and `--conf spark.sql.extensions=...` on the command that starts Spark, or on
    the Spark Connect server for a Connect client.
    """


class SparkVersionMismatchError(RuntimeError):
    """The bundled jar was built for another Spark major.minor version than the running Spark.

    Raised by `configure` and `check_spark_version`. The extension uses Spark's internal
    (Catalyst) APIs, which change between minor versions; the message says which Spark the jar
    needs and how to get a matching pair.
    """


class SparkVersionWarning(UserWarning):
    """The bundled jar was built for another patch release of the running Spark minor version.

    Issued by `configure` and `check_spark_version`: expected to work, but not tested.
    """


def jar_path() -> str:
    """Absolute path of the jar bundled in this package.

    Use it with `--jars` when Spark is started by another command than `configure`:

        spark-submit --jars "$(python -c 'import sliding_window_agg as s; print(s.jar_path())')" \\
          --conf spark.sql.extensions=org.apache.spark.sql.slidingwindow.SlidingWindowExtensions app.py

    Raises:
        FileNotFoundError: the jar is missing; reinstalling the package builds and bundles it.
    """
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars", _JAR_NAME)
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"The sliding-window-agg jar is missing at {path}; reinstall the package "
            "(pip install sliding-window-agg), which builds and bundles it."
        )
    return path


def built_for_spark_version(jar: Optional[str] = None) -> Optional[str]:
    """The Spark (pyspark) version the jar was compiled against, as recorded in the jar at build
    time, or None for a jar that carries no record."""
    jar = jar or jar_path()
    try:
        with zipfile.ZipFile(jar) as z:
            text = z.read(_BUILD_INFO_ENTRY).decode("utf-8")
    except KeyError:
        return None
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "spark.version":
            return value.strip()
    return None


def _version_tuple(version: str) -> Tuple[int, int, Optional[int]]:
    match = re.match(r"\s*(\d+)\.(\d+)(?:\.(\d+))?", version)
    if not match:
        raise ValueError(f"not a Spark version: {version!r}")
    major, minor, patch = match.groups()
    return int(major), int(minor), None if patch is None else int(patch)


def running_spark_version() -> Tuple[str, str]:
    """The version of the Spark this Python process will start, and where it was found.

    pyspark starts the Spark in ``$SPARK_HOME`` when that is set (a Spark distribution), else
    the one inside the pyspark package: the version is read from that Spark's ``spark-core``
    jar, falling back to ``pyspark.__version__``.
    """
    import pyspark

    home = os.environ.get("SPARK_HOME") or os.path.dirname(os.path.abspath(pyspark.__file__))
    jars = os.path.join(home, "jars")
    for name in sorted(os.listdir(jars)) if os.path.isdir(jars) else []:
        match = re.fullmatch(r"spark-core_[\d.]+-(\d+\.\d+\.\d+.*)\.jar", name)
        if match:
            return match.group(1), f"the Spark in {home}"
    return pyspark.__version__, "the installed pyspark"


def check_spark_version(running: Optional[str] = None, jar: Optional[str] = None) -> None:
    """Checks that the bundled jar was built for the running Spark.

    The extension plugs into Spark's internal (Catalyst) APIs, which change between minor
    releases, so the major.minor versions must match. A different patch release of the same
    minor version is accepted with a `SparkVersionWarning`. `configure` calls it.

    Args:
        running: the Spark version to check against; by default the version of the Spark that
            pyspark starts (`$SPARK_HOME`, else the pyspark package's own Spark).
        jar: the jar to check; by default the bundled one (`jar_path()`).

    Raises:
        SparkVersionMismatchError: the jar was built for another major.minor version.
    """
    where = "the running Spark"
    if running is None:
        running, where = running_spark_version()
    jar = jar or jar_path()
    built = built_for_spark_version(jar)
    if built is None:
        return
    built_v, running_v = _version_tuple(built), _version_tuple(running)
    if built_v[:2] != running_v[:2]:
        raise SparkVersionMismatchError(
            f"The sliding-window-agg jar ({jar}) was built for Spark {built}, but {where} is "
            f"version {running}. The extension uses Spark internals that change between minor "
            f"versions, so this jar only works with Spark {built_v[0]}.{built_v[1]}.x. Run it "
            f"with Spark {built_v[0]}.{built_v[1]} (pip install 'pyspark=={built}'; unset "
            "SPARK_HOME or point it at a matching Spark), or install a sliding-window-agg built "
            f"for Spark {running_v[0]}.{running_v[1]}. configure(builder, check_version=False) "
            "skips this check."
        )
    if built_v != running_v:
        warnings.warn(
            f"The sliding-window-agg jar was built for Spark {built} and {where} is version "
            f"{running}: another patch release of the same minor version, expected to work but "
            f"not tested. Reinstall sliding-window-agg built against Spark {running} to silence "
            "this warning.",
            SparkVersionWarning,
            stacklevel=3,
        )


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


def configure(builder: SparkSession.Builder, *, check_version: bool = True) -> SparkSession.Builder:
    """Adds the bundled jar and the extension to a session builder and returns it.

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
        SparkVersionMismatchError: the jar was built for another Spark minor version.
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
    jar = jar_path()
    if check_version:
        check_spark_version(jar=jar)
    if _driver_started_without_jar():
        raise ExtensionNotLoadedError(
            "This Python process runs in a Spark driver that was started before configure() "
            "(spark-submit, the pyspark shell, or an earlier session started without the jar), "
            "and the jar is not on its class path: configure() can no longer add it there. "
            + HOW_TO_LOAD_STARTED_DRIVER.format(jar=jar, ext=EXTENSION_CLASS)
        )
    options = getattr(builder, "_options", {})
    return builder.config("spark.jars", _append(options.get("spark.jars"), jar)).config(
        "spark.sql.extensions", _append(options.get("spark.sql.extensions"), EXTENSION_CLASS)
    )


def _driver_started_without_jar() -> bool:
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


def _lists_extension(spark: SparkSession) -> bool:
    extensions = spark.conf.get("spark.sql.extensions", "") or ""
    return EXTENSION_CLASS in [e.strip() for e in extensions.split(",")]


def is_loaded(spark: SparkSession) -> bool:
    """Whether `spark` was started with the extension.

    True when `spark.sql.extensions` lists `EXTENSION_CLASS` and its functions are registered
    (the driver could load its classes).
    """
    return _lists_extension(spark) and spark.catalog.functionExists("sliding_window")


def _is_connect_session(spark: SparkSession) -> bool:
    return type(spark).__module__.startswith("pyspark.sql.connect")


def require_extension(spark: Optional[SparkSession]) -> None:
    """Raises :class:`ExtensionNotLoadedError`, saying how to load it, if ``spark`` lacks it."""
    if spark is not None and not is_loaded(spark):
        try:
            jar = jar_path()
        except FileNotFoundError:
            jar = "<sliding-window-agg.jar>"
        if _is_connect_session(spark):
            how = HOW_TO_LOAD_CONNECT
        elif _lists_extension(spark):
            how = ("spark.sql.extensions names it, but the driver could not load its classes: "
                   "the jar is not on the driver's class path. " + HOW_TO_LOAD_STARTED_DRIVER)
        else:
            how = HOW_TO_LOAD
        raise ExtensionNotLoadedError(
            "The sliding-window-agg extension is not loaded in this Spark session. "
            + how.format(jar=jar, ext=EXTENSION_CLASS)
        )


def active_session() -> Optional[SparkSession]:
    # SparkSession.getActiveSession also returns the active Spark Connect session.
    try:
        return SparkSession.getActiveSession()
    except Exception:  # pragma: no cover - no session machinery available
        return None
