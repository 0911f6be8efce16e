"""Puts the Scala sources in the package (every install can build the jar of the user's Spark on
first use), and the jar of the Spark installed where the package is built, if any."""
import importlib.util
import os
import shutil
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithJar(build_py):
    """Copies scala/src/main into the package as scala-src/, and, where pyspark is installed in
    the build environment (`pip install --no-build-isolation`, `make wheel`), compiles that
    Spark's jar into python/sliding_window_agg/jars first. The package is then copied with every
    jar already there: the release wheel carries one per supported Spark (`make wheel`). An
    isolated build (plain `pip install <checkout>`) has no pyspark and builds no jar: the
    package builds the jar of the user's Spark on first use."""

    def run(self):
        if importlib.util.find_spec("pyspark") is not None:
            sys.path.insert(0, HERE)
            from buildtools.scala_build import build_main_jar

            build_main_jar()
        super().run()
        if not getattr(self, "editable_mode", False):  # an editable install reads the checkout's
            target = os.path.join(self.build_lib, "sliding_window_agg", "scala-src")
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(os.path.join(HERE, "scala", "src", "main"), target)


setup(cmdclass={"build_py": BuildPyWithJar})
