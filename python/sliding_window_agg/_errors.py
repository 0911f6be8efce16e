"""The package's own errors and warnings, and the instructions their messages give."""
from __future__ import annotations

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
    "{jar} --conf spark.sql.extensions={ext}); `python -m sliding_window_agg jar`, run beside "
    "the server's Spark, prints the jar."
)


class ExtensionNotLoadedError(RuntimeError):
    """The Spark session was started without the sliding-window-agg extension.

    `sliding_window`, `batch_window` and `sliding_window_agg` raise it. The message says how to
    load the extension for that kind of session: with `configure` before the session starts,
    with `--jars` and `--conf spark.sql.extensions=...` on the command that starts Spark, or on
    the Spark Connect server for a Connect client.
    """


class ConnectClientOnlyError(RuntimeError):
    """`configure` was called where only the Spark Connect client is installed (`pyspark-client`).

    There is no Spark to start here: the jar and the extension belong on the Spark Connect
    server, and the client connects with `SparkSession.builder.remote("sc://...")`.
    """


class JarUnreadableError(RuntimeError):
    """The jar is not one the package can use: not a zip file that can be read (empty, or cut
    short by a full disk or an interrupted copy).

    Raised by `jar_path`, `configure` and `check_spark_version`. A jar built on first use for the
    local Spark is built again instead; the error is for a jar the installation carries, a jar
    built earlier for another Spark, or a jar given by path. The message names the file and says
    how to replace it.
    """


class SparkVersionMismatchError(RuntimeError):
    """The jar was built for another Spark major.minor version than the running Spark.

    Raised by `configure` and `check_spark_version`. The extension uses Spark's internal
    (Catalyst) APIs, which change between minor versions; the message says which Spark the jar
    needs and how to get a matching pair.
    """


class UnsupportedSparkVersionError(SparkVersionMismatchError):
    """The running Spark is not a version the package has a jar for (3.5, 4.0, 4.1, 4.2, 4.3).

    Raised by `jar_path` and `configure`; the message names the supported versions.
    """


class SparkVersionWarning(UserWarning):
    """The jar was built for another patch release of the running Spark minor version.

    Issued by `configure` and `check_spark_version`: expected to work, but not tested.
    """
