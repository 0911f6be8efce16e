"""sliding-window-agg: Kafka Streams' sliding windows (KIP-450) and batch windows for Apache Spark.

>>> import sliding_window_agg as swa
>>> spark = swa.configure(SparkSession.builder).getOrCreate()
>>> df.groupBy("user", swa.sliding_window("ts", "10 seconds")).agg(F.sum("amount"))

The package's modules, each holding one concern: `functions` (the public column functions and
helper), `_configure` (`configure`), `_jar` (the jar of the running Spark and what the build
recorded in it), `_jar_cache` and `_jar_build` (the jar built on first use), `_local_spark` (the
Spark this process starts), `_supported` (the supported versions, written once),
`_spark_version` (the check of the Spark version the jar was built for), `_runtime` (probes of
the running session), `_errors` (the package's errors), `_arguments` (checks of the functions'
arguments), `_quiet` (the quiet logging of the demo), `_version`
(`__version__`, from the `VERSION` file) and `__main__` (`python -m sliding_window_agg jar |
info`).
"""
from ._configure import configure
from ._errors import ConnectClientOnlyError, ExtensionNotLoadedError, JarUnreadableError, SparkVersionMismatchError, SparkVersionWarning, UnsupportedSparkVersionError
from ._jar import jar_path
from ._supported import EXTENSION_CLASS
from ._runtime import is_loaded
from ._spark_version import check_spark_version
from ._version import __version__
from .functions import batch_window, sliding_window, sliding_window_agg, trailing_window

__all__ = [
    "EXTENSION_CLASS",
    "batch_window",
    "ExtensionNotLoadedError",
    "configure",
    "ConnectClientOnlyError",
    "is_loaded",
    "jar_path",
    "JarUnreadableError",
    "SparkVersionMismatchError",
    "SparkVersionWarning",
    "UnsupportedSparkVersionError",
    "check_spark_version",
    "sliding_window",
    "sliding_window_agg",
    "trailing_window",
]
