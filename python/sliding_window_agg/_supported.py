"""The facts the package, the build and the documentation repeat, written once.

The supported Spark versions, the Scala of each, the jar's name, the pyspark release each
version is built and tested with, and the extension class. This module imports nothing, so
buildtools/ loads it by path (an isolated build has no installed package) and
tests/test_docs_facts.py checks every page that repeats one of these facts against it.
"""

SPARK_VERSIONS = ("3.5", "4.0", "4.1", "4.2", "4.3")
"""The Spark minor versions the package supports, oldest first: one jar each."""

SCALA_BINARY = {"3.5": "2.12", "4.0": "2.13", "4.1": "2.13", "4.2": "2.13", "4.3": "2.13"}
"""The Scala of each supported Spark's jars (Spark 3.5 is built with Scala 2.12)."""

TESTED_PYSPARK = {"3.5": "3.5.9", "4.0": "4.0.5", "4.1": "4.1.4", "4.2": "4.2.1", "4.3": "4.3.0"}
"""The pyspark release each supported Spark minor version is built and tested with (`make test`,
`make wheel`); the jar of a minor version works with its other patch releases."""

DEFAULT_SPARK = "4.3"
"""The Spark of `make setup`, `make demo` and the whole test suite; the others run the tests
marked `every_spark`."""

PYSPARK_REQUIREMENT = "pyspark>=3.5,<4.4"
"""The pyspark versions the package works with (the `spark` extra)."""

EXTENSION_CLASS = "org.apache.spark.sql.slidingwindow.SlidingWindowExtensions"
"""The value for `spark.sql.extensions`: the class that registers `sliding_window` and
`batch_window` and the rules and operators behind them."""


def jar_file_name(spark_minor: str) -> str:
    """The file name of the jar for a Spark minor version: ``sliding-window-agg_4.3_2.13.jar``."""
    return f"sliding-window-agg_{spark_minor}_{SCALA_BINARY[spark_minor]}.jar"


BUILD_INFO_ENTRY = "sliding-window-agg.properties"
"""The jar's entry where the build records ``spark.version=<the Spark it was compiled against>``
and ``version=<the package's version>`` (buildtools, the first-use build and build.sbt)."""
