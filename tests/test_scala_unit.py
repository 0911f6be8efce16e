"""Runs the Scala core's JUnit suites (scala/src/test) against a freshly built main jar."""
from __future__ import annotations

import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from buildtools import scala_build  # noqa: E402

# On every Spark: the operator harness runs the operators over that Spark's own state stores. The
# other Sparks run 4 of its random streams per test, which reach every call of their stores, and a
# quarter of the other randomized suites' cases (PropertyCases.scala), which reach that Spark's
# expressions and codegen; the default one runs them all, or as many streams as
# SWA_HARNESS_STREAMS says (`make test-fast`: 8).
OTHER_SPARKS_HARNESS = {"swa.harness.streams": "4", "swa.properties.scale": "0.25"}


def harness_properties() -> dict | None:
    if not scala_build.is_default_spark():
        return OTHER_SPARKS_HARNESS
    streams = os.environ.get("SWA_HARNESS_STREAMS")
    return {"swa.harness.streams": streams} if streams else None


@pytest.mark.every_spark
def test_scala_junit_suites():
    main_jar = scala_build.build_main_jar()
    test_jar = scala_build.build_test_jar(main_jar, scala_build.test_jar())
    suites = scala_build.test_classes(test_jar)
    assert len(suites) >= 4, f"expected at least 4 JUnit suites, found {suites}"

    result = scala_build.run_junit(main_jar, test_jar, suites, properties=harness_properties())
    print("\n".join(suites))
    print(result.stdout)

    assert result.returncode == 0, f"JUnit failed:\n{result.stdout[-8000:]}"
    assert "OK (" in result.stdout, result.stdout[-8000:]
    ran = re.search(r"OK \((\d+) tests?\)", result.stdout)
    assert ran and int(ran.group(1)) >= len(suites), result.stdout[-2000:]
