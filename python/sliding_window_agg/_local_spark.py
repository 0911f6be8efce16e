"""The Spark this Python process starts: ``$SPARK_HOME`` when set (a Spark distribution), else
the one inside the pyspark package; its version and its jars folder."""
from __future__ import annotations

import contextlib
import os
from typing import Optional, Tuple

from . import _jar_build


def spark_home() -> str:
    """The folder of the Spark that pyspark starts."""
    import pyspark

    return os.environ.get("SPARK_HOME") or os.path.dirname(os.path.abspath(pyspark.__file__))


def spark_jars() -> Optional[str]:
    """The jars folder of that Spark, or None when there is none (a Spark Connect client)."""
    jars = os.path.join(spark_home(), "jars")
    return jars if os.path.isdir(jars) else None


def running_spark_version() -> Tuple[str, str]:
    """The version of the Spark this Python process will start, and where it was found.

    pyspark starts the Spark in ``$SPARK_HOME`` when that is set (a Spark distribution), else
    the one inside the pyspark package: the version is read from that Spark's ``spark-core``
    jar, falling back to ``pyspark.__version__``.
    """
    import pyspark

    jars = spark_jars()
    if jars is not None:
        with contextlib.suppress(RuntimeError):  # a jars folder without spark-core
            return _jar_build.spark_version(jars), f"the Spark in {spark_home()}"
    return pyspark.__version__, "the installed pyspark"


def is_connect_client_only() -> bool:
    """Whether this Python environment has only the Spark Connect client (``pip install
    pyspark-client``): no Spark to start here (no jars in ``$SPARK_HOME`` nor in the pyspark
    package)."""
    import pyspark

    homes = [os.environ.get("SPARK_HOME"), os.path.dirname(os.path.abspath(pyspark.__file__))]
    return not any(home and os.path.isdir(os.path.join(home, "jars")) for home in homes)
