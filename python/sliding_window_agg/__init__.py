"""sliding-window-agg: Kafka Streams' sliding windows (KIP-450) and batch windows for Apache Spark.

>>> import sliding_window_agg as swa
>>> spark = swa.configure(SparkSession.builder).getOrCreate()
>>> df.groupBy("user", swa.sliding_window("ts", "10 seconds")).agg(F.sum("amount"))
"""
from ._session import (
    EXTENSION_CLASS,
    ExtensionNotLoadedError,
    configure,
    is_loaded,
    jar_path,
    SparkVersionMismatchError,
    SparkVersionWarning,
    check_spark_version,
)
from .functions import batch_window, sliding_window, sliding_window_agg

__version__ = "0.1.0"

__all__ = [
    "EXTENSION_CLASS",
    "batch_window",
    "ExtensionNotLoadedError",
    "configure",
    "is_loaded",
    "jar_path",
    "SparkVersionMismatchError",
    "SparkVersionWarning",
    "check_spark_version",
    "sliding_window",
    "sliding_window_agg",
]
