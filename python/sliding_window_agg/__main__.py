"""``python -m sliding_window_agg``: the jar for a Spark, and what this installation has.

    python -m sliding_window_agg jar                    # the local Spark's jar (built if needed)
    python -m sliding_window_agg jar --spark-jars DIR   # the jar of the Spark whose jars are in DIR
    python -m sliding_window_agg jar --spark 3.5        # a jar carried or built earlier
    python -m sliding_window_agg info                   # versions, jars carried and built

``jar`` prints only the path, so that a shell can use it:
``spark-submit --jars "$(python -m sliding_window_agg jar)" ...``.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional

from . import _jar, _jar_build, _jar_cache
from ._supported import EXTENSION_CLASS, SPARK_VERSIONS
from ._version import __version__


def _jar_of_folder(jars: str) -> str:
    """The jar for the Spark of a jars folder: carried, built earlier (for any patch release of
    that minor version, as `jar_path`), or compiled against that folder now."""
    minor = _jar.spark_minor_of(_jar_build.spark_version(jars))
    return _jar.jar_at_hand(minor) or _jar_cache.build(jars)


def _info() -> str:
    lines = [f"sliding-window-agg {__version__}", f"extension class: {EXTENSION_CLASS}"]
    try:
        from ._local_spark import running_spark_version

        version, where = running_spark_version()
        lines.append(f"local Spark: {version} ({where})")
    except ImportError:
        lines.append("local Spark: none (pyspark is not installed)")
    carried = _jar.bundled_jars()
    lines.append(f"supported Spark: {', '.join(SPARK_VERSIONS)}")
    lines.append(f"jars carried: {', '.join(carried.values()) or 'none'}")
    built = [p for p in (_jar_cache.cached_jar(m) for m in SPARK_VERSIONS) if p]
    lines.append(f"jars built on first use: {', '.join(built) or 'none'} "
                 f"(cache: {_jar_cache.cache_root()}, ${_jar_cache.CACHE_ENV})")
    main = _jar_cache.sources_dir()
    lines.append(f"Scala sources: {main or 'none (no other jar can be built)'}")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sliding_window_agg", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    jar = commands.add_parser("jar", help="print the path of the jar for a Spark, building it first if needed")
    which = jar.add_mutually_exclusive_group()
    which.add_argument("--spark", metavar="VERSION",
                       help="a Spark version such as 3.5 or 4.0.5 (default: the Spark pyspark starts)")
    which.add_argument("--spark-jars", metavar="DIR",
                       help="the jars folder of a Spark (a distribution's jars/, or a pyspark package's): "
                            "the jar for that Spark, compiled against it if needed")
    commands.add_parser("info", help="the package's version, the local Spark, the jars carried and built")
    options = parser.parse_args(argv)
    try:
        if options.command == "info":
            print(_info())
        elif options.spark_jars:
            print(_jar_of_folder(os.path.abspath(options.spark_jars)))
        else:
            print(_jar.jar_path(options.spark))
    except (FileNotFoundError, RuntimeError) as e:
        print(f"sliding-window-agg: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
