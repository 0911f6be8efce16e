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
    data = pkgutil.get_data(__package__, "VERSION")
    if data is None:  # a loader that cannot read package data
        raise RuntimeError(f"sliding_window_agg cannot read its VERSION file ({VERSION_FILE})")
    return data.decode("utf-8").strip()


__version__ = _read_version()
