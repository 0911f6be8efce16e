"""The checkout the tests run in: its folders, and the package's jar built from its current
sources. Puts the checkout on sys.path (for `buildtools`), for pytest and for the scripts of
this folder run on their own."""
from __future__ import annotations

import os
import sys

SUPPORT = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(SUPPORT)
ROOT = os.path.dirname(TESTS)
FIXTURES = os.path.join(TESTS, "fixtures")

if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def fresh_main_jar() -> str:
    """The package's jar, rebuilt first if a Scala source changed since it was built (editable
    checkouts)."""
    from buildtools import scala_build

    return scala_build.build_main_jar()
