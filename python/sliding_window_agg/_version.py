"""The package's version, read from the `VERSION` file next to this module.

`VERSION` is the one place the version is written: `pyproject.toml` reads it
(`[tool.setuptools.dynamic]`), `build.sbt` reads it with `IO.read`, and
`buildtools/scala_build.py` writes it into the jar's manifest and properties.
"""
from __future__ import annotations

import os

VERSION_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "VERSION")


def _read_version() -> str:
    with open(VERSION_FILE, encoding="utf-8") as f:
        return f.read().strip()


__version__ = _read_version()
