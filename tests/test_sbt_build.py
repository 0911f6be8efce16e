"""The sbt build (build.sbt, run by buildtools/sbt.py: sbt installed from the machine's Maven
repository and resolving from it alone) builds the jar the Python package builds: for the running
Spark, against its pyspark's jars, the same entries and the same Spark recorded in it."""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile

import pyspark
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from buildtools import scala_build  # noqa: E402

PROPERTIES = "sliding-window-agg.properties"


def entries(jar: str) -> dict:
    """The jar's files (no folders), and its properties entry."""
    with zipfile.ZipFile(jar) as z:
        names = sorted(n for n in z.namelist() if not n.endswith("/") and not n.startswith("META-INF/"))
        return {"names": names, "properties": z.read(PROPERTIES).decode("utf-8")}


@pytest.mark.slow
def test_sbt_builds_the_jar_the_package_builds():
    package_jar = scala_build.build_main_jar()
    minor = ".".join(pyspark.__version__.split(".")[:2])
    jars = os.path.join(os.path.dirname(pyspark.__file__), "jars")
    result = subprocess.run([sys.executable, os.path.join("buildtools", "sbt.py"), f"-DsparkVersion={minor}",
                             f"-DsparkJars={jars}", "package"],
                            cwd=ROOT, capture_output=True, text=True, timeout=1500)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    sbt_jar = os.path.join(ROOT, "target", os.path.basename(package_jar))
    assert os.path.exists(sbt_jar), (sbt_jar, result.stdout[-2000:])
    built, packaged = entries(sbt_jar), entries(package_jar)
    assert built["names"] == packaged["names"], (
        sorted(set(built["names"]) ^ set(packaged["names"]))[:20])
    assert f"spark.version={pyspark.__version__}" in built["properties"], built["properties"]
    assert built["properties"] == packaged["properties"]
