"""Builds the Scala jar as part of every install (``pip install .``, ``pip install -e .``)."""
import os
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithJar(build_py):
    """Compiles scala/src/main into python/sliding_window_agg/jars, for the Spark of the pyspark
    in the build environment, before copying the package (with every jar already there: the
    release wheel carries one per supported Spark, see `make wheel`)."""

    def run(self):
        sys.path.insert(0, HERE)
        from buildtools.scala_build import build_main_jar

        build_main_jar()
        super().run()


setup(cmdclass={"build_py": BuildPyWithJar})
