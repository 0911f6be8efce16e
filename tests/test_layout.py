"""The tests are laid out as docs/development.md says: tests/ holds test modules only (and
conftest.py), each importing no other, what they share is in tests/support/; the page's tables
list exactly the test modules, the ScalaTest suites, the StreamTest suites and the support
modules there are."""
from __future__ import annotations

import ast
import os
import re
from typing import List

from checkout import ROOT, SUPPORT, TESTS

PAGE = os.path.join(ROOT, "docs", "development.md")
SCALA_TESTS = os.path.join(ROOT, "scala", "src", "test")
STREAMTEST_SUITES = os.path.join(ROOT, "scala", "src", "ecosystem-test")
SUITE_PACKAGE = "org/apache/spark/sql/slidingwindow/"


def listed(heading: str) -> List[str]:
    """The backticked name that starts each row of the first table under `heading`."""
    with open(PAGE, encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert heading in lines, f"no section {heading!r} in docs/development.md"
    rows = []
    for line in lines[lines.index(heading) + 1:]:
        if line.startswith("#") or (rows and not line.startswith("|")):
            break
        if line.startswith("|"):
            rows.append(line)
    return [m.group(1) for m in (re.match(r"\| `([^`]+)`", row) for row in rows) if m]


def assert_lists(heading: str, names: List[str], where: str) -> None:
    entries = listed(heading)
    missing = sorted(set(names) - set(entries))
    unknown = sorted(set(entries) - set(names))
    assert not missing, f"in {where} but not in the table of {heading!r} in docs/development.md: {missing}"
    assert not unknown, f"in the table of {heading!r} in docs/development.md but not in {where}: {unknown}"
    assert len(entries) == len(set(entries)), f"listed twice under {heading!r}: {entries}"


def module_names() -> List[str]:
    """The test modules of tests/."""
    return sorted(n for n in os.listdir(TESTS) if re.fullmatch(r"test_\w+\.py", n))


def test_development_lists_every_test_module():
    assert_lists("## Tests", [f"tests/{n}" for n in module_names()], "tests/")


def test_development_lists_every_scala_suite():
    suites = [os.path.join(folder, n).replace(os.sep, "/").split(SUITE_PACKAGE, 1)[1]
              for folder, _, files in os.walk(SCALA_TESTS) for n in files if n.endswith("Suite.scala")]
    assert suites, "no *Suite.scala under scala/src/test"
    assert_lists("### ScalaTest suites", suites, "scala/src/test (under org/apache/spark/sql/slidingwindow/)")


def test_development_lists_every_streamtest_suite():
    suites = [os.path.join(folder, n).replace(os.sep, "/").split(SUITE_PACKAGE, 1)[1]
              for folder, _, files in os.walk(STREAMTEST_SUITES) for n in files if n.endswith("Suite.scala")]
    assert suites, "no *Suite.scala under scala/src/ecosystem-test"
    assert_lists("### StreamTest suites", suites, "scala/src/ecosystem-test (under org/apache/spark/sql/slidingwindow/)")


def test_development_lists_every_support_module():
    assert_lists("### Support modules", [n for n in os.listdir(SUPPORT) if n.endswith(".py")], "tests/support/")


def test_tests_holds_only_test_modules():
    others = [n for n in os.listdir(TESTS) if n.endswith(".py") and n != "conftest.py" and n not in module_names()]
    assert not others, f"modules of tests/ that are not test modules (their place is tests/support/): {others}"


def test_no_test_module_imports_another():
    """A test module imports what it shares from tests/support/, never from another test
    module or conftest.py (which pytest imports itself)."""
    found = []
    paths = [os.path.join(TESTS, n) for n in module_names()]
    paths += [os.path.join(SUPPORT, n) for n in os.listdir(SUPPORT) if n.endswith(".py")]
    for path in paths:
        name = os.path.relpath(path, TESTS)
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            modules = ([a.name for a in node.names] if isinstance(node, ast.Import)
                       else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{name}: {m}" for m in modules if m.split(".")[0].startswith("test_")
                      or m.split(".")[0] == "conftest"]
    assert not found, f"imports of test modules or conftest: {found}"
