"""Builds the Scala jar as part of every install (``pip install .``, ``pip install -e .``)."""
import os
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithJar(build_py):
    """Compiles scala/src/main into python/sliding_window_agg/jars before copying the package."""

    def run(self):
        sys.path.insert(0, HERE)
        from buildtools.scala_build import JAR_NAME, build_main_jar

        build_main_jar(os.path.join(HERE, "python", "sliding_window_agg", "jars", JAR_NAME))
        super().run()


setup(cmdclass={"build_py": BuildPyWithJar})
