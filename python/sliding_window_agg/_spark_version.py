"""The check that the jar was built for the Spark that pyspark runs."""
from __future__ import annotations

import re
import warnings
from typing import Optional, Tuple

from ._errors import SparkVersionMismatchError, SparkVersionWarning
from ._jar import built_for_spark_version, jar_path
from ._local_spark import running_spark_version


def _version_tuple(version: str) -> Tuple[int, int, Optional[int]]:
    match = re.match(r"\s*(\d+)\.(\d+)(?:\.(\d+))?", version)
    if not match:
        raise ValueError(f"not a Spark version: {version!r}")
    major, minor, patch = match.groups()
    return int(major), int(minor), None if patch is None else int(patch)


def check_spark_version(running: Optional[str] = None, jar: Optional[str] = None) -> None:
    """Checks that the jar was built for the running Spark.

    The extension plugs into Spark's internal (Catalyst) APIs, which change between minor
    releases, so the major.minor versions must match. A different patch release of the same
    minor version is accepted with a `SparkVersionWarning`. `configure` calls it.

    Args:
        running: the Spark version to check against; by default the version of the Spark that
            pyspark starts (`$SPARK_HOME`, else the pyspark package's own Spark).
        jar: the jar to check; by default the running Spark's (`jar_path()`).

    Raises:
        SparkVersionMismatchError: the jar was built for another major.minor version.
        JarUnreadableError: the jar cannot be read.
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
            "SPARK_HOME or point it at a matching Spark), or use the jar for Spark "
            f"{running_v[0]}.{running_v[1]}: `python -m sliding_window_agg jar` prints it (and "
            "builds it first if needed). configure(builder, check_version=False) skips this check."
        )
    if built_v != running_v:
        warnings.warn(
            f"The sliding-window-agg jar was built for Spark {built} and {where} is version "
            f"{running}: another patch release of the same minor version, expected to work but "
            "not tested.",
            SparkVersionWarning,
            stacklevel=3,
        )
