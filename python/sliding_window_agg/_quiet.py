"""`quiet_logging`: a local session that prints only what its script prints.

Used by the demo (`python -m sliding_window_agg.demo`). Spark's default logging warns from the moment its JVM starts (the
native-hadoop library, the loopback hostname, ...), before a script can call `setLogLevel`, and
its console progress bar draws over the output: the driver JVM is therefore given
demo-log4j2.properties (errors only, on stderr) when it starts, and the bar is turned off.
"""
from __future__ import annotations

import os

from pyspark.sql import SparkSession

LOG4J2_PROPERTIES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo-log4j2.properties")
"""The quiet logging: errors only, on stderr."""


def quiet_java_options() -> str:
    """The driver JVM option that makes it log errors only, from its start."""
    option = f"-Dlog4j2.configurationFile={LOG4J2_PROPERTIES}"
    return f'"{option}"' if " " in option else option  # Spark splits the options on spaces


def quiet_logging(builder: SparkSession.Builder) -> SparkSession.Builder:
    """Makes the session that `builder` starts log errors only and show no progress bar.

    Takes effect only when the builder starts the driver JVM (the first session of a Python
    process run with `python`, not `spark-submit` or the pyspark shell). Java options already
    on the builder are kept.
    """
    options = getattr(builder, "_options", {})
    java = options.get("spark.driver.extraJavaOptions")
    quiet = quiet_java_options()
    return (builder
            .config("spark.driver.extraJavaOptions", f"{java} {quiet}" if java else quiet)
            .config("spark.ui.showConsoleProgress", "false"))
