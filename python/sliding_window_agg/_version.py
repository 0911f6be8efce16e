"""The package's version, read from the `VERSION` file next to this module.

`VERSION` is the one place the version is written: `pyproject.toml` reads it
(`[tool.setuptools.dynamic]`), `build.sbt` reads it with `IO.read`, and
`buildtools/scala_build.py` writes it into the jar's manifest and properties.

It is read as package data (`pkgutil.get_data`), not as a file path, so that the package also
imports from a zip archive, as `spark-submit --py-files sliding_window_agg.zip` ships it.
"""
from __future__ import annotations

import os
import pkgutil

VERSION_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "VERSION")


def _read_version() -> str:
    try:
        data = pkgutil.get_data(__package__, "VERSION")
    except OSError:  # a zip of the .py files alone, as shipped with --py-files
        data = None
    # Nothing depends on the version at run time: the package works without the file.
    return data.decode("utf-8").strip() if data is not None else "unknown"


__version__ = _read_version()
