"""`python -m sliding_window_agg.demo` (`make demo`), the first thing a new user runs, prints its
captions and result tables and nothing else: no Spark WARN line and no console progress bar,
before, between or inside the tables."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from checkout import ROOT, fresh_main_jar

pytestmark = pytest.mark.slow  # processes, servers or long runs: `make test` only

# What a JVM itself may print when it starts, before any Python or Spark code runs: Spark's
# launcher always adds --add-modules=jdk.incubator.vector, and Java then prints this warning.
JVM_STARTUP = ("WARNING: Using incubator modules:", "Picked up JAVA_TOOL_OPTIONS:", "Picked up _JAVA_OPTIONS:")

CAPTIONS = ("SQL: SELECT user, sliding_window(ts, '10 seconds')",
            "PySpark: df.groupBy('user', sliding_window('ts', '10 seconds'))")


def test_demo_prints_only_its_tables():
    fresh_main_jar()
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "python") + os.pathsep
           + os.environ.get("PYTHONPATH", ""), "PYTHONUNBUFFERED": "1"}
    # One pipe for both streams, unbuffered: the lines come in the order a terminal shows them.
    result = subprocess.run([sys.executable, "-m", "sliding_window_agg.demo"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    output = result.stdout
    assert result.returncode == 0, output[-5000:]
    assert not re.search(r"\bWARN\b", output), output
    assert "[Stage" not in output, output  # the console progress bar
    lines = [line for line in re.split(r"[\r\n]+", output) if line.strip()]
    first = next(i for i, line in enumerate(lines) if line.startswith(CAPTIONS[0]))
    assert all(line.startswith(JVM_STARTUP) for line in lines[:first]), lines[:first]
    body = lines[first:]
    assert [line for line in body if line.startswith(CAPTIONS)] == [
        line for line in body if not line.startswith(("+", "|"))], body  # captions and tables only
    assert [i for i, line in enumerate(body) if line.startswith(CAPTIONS)] == [
        0, next(i for i, line in enumerate(body) if line.startswith(CAPTIONS[1]))]
    first_window = re.compile(r"\|alice\|\{2024-01-01 12:00:00, 2024-01-01 12:00:10\} *\|1 *\|1\.0 *\|")
    assert sum(1 for line in body if first_window.match(line)) == 2, body  # in both tables


def make_recipe(target: str) -> tuple:
    """(the prerequisites, the commands) of a Makefile target."""
    with open(os.path.join(ROOT, "Makefile")) as f:
        lines = f.read().splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    commands = []
    for line in lines[head + 1:]:
        if not line.startswith("\t"):
            break
        commands.append(line.strip())
    return lines[head].split(":", 1)[1].split(), commands


@pytest.mark.parametrize("target", ["demo"])
def test_make_demo_installs_only_what_the_demo_needs(target):
    """`make demo` installs no Maven and no test tools, and its commands print nothing of their
    own (they are not echoed)."""
    prerequisites, commands = make_recipe(target)
    assert prerequisites == []
    text = "\n".join(commands)
    assert "mvn" not in text and "maven" not in text.lower() and "test" not in re.sub(r"\bsliding_window_agg\b", "", text), text
    assert all(c.startswith("@") for c in commands), commands
