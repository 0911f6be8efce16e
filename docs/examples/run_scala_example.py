"""Compiles docs/examples/ScalaExample.scala with pyspark's Scala compiler and runs it against
pyspark's Spark jars and the extension's jar (built first if needed).

    PYTHONPATH=python python docs/examples/run_scala_example.py
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

from buildtools import scala_build  # noqa: E402

import sliding_window_agg as swa  # noqa: E402


def main() -> int:
    jar = scala_build.build_main_jar(swa.jar_path())
    classes = tempfile.mkdtemp()
    scala_build.scalac([os.path.join(HERE, "ScalaExample.scala")], [jar], classes)
    cp = os.pathsep.join([classes, jar, os.path.join(scala_build.spark_jars_dir(), "*")])
    opens = [f"--add-opens=java.base/{p}=ALL-UNNAMED"
             for p in ("java.lang", "java.nio", "sun.nio.ch", "java.util")]
    return subprocess.call([scala_build._java(), "-Xmx1g", *opens, "-cp", cp, "ScalaExample"])


if __name__ == "__main__":
    sys.exit(main())
