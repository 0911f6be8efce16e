"""The checkout's builds skip a jar built from the same inputs and build one whose inputs changed
(buildtools/scala_build.py, docs/development.md "Skipping"): the digest of the sources' contents
decides, not their times. The compile itself is replaced by one that writes a file and counts."""
from __future__ import annotations

import os
import shutil

import pytest

from buildtools import scala_build


@pytest.fixture
def build(tmp_path, monkeypatch):
    """(builds so far, the copy of scala/src/main the build reads, the jar it writes, build())."""
    main = tmp_path / "main"
    shutil.copytree(scala_build.MAIN, main)
    monkeypatch.setattr(scala_build, "MAIN", str(main))
    built = []

    def compile_jar(sources, jars, out_jar, version):
        built.append(out_jar)
        if hooks:
            hooks.pop()()
        with open(out_jar, "w") as f:
            f.write(f"jar {len(built)}")
        return out_jar

    hooks = []
    monkeypatch.setattr(scala_build.jar_build, "build_jar", compile_jar)
    out = str(tmp_path / "out" / "x.jar")
    return built, main, out, hooks, lambda: scala_build.build_main_jar(out)


def a_source(main) -> str:
    return str(next(p for p in sorted((main / "scala").rglob("*.scala"))))


def test_the_same_sources_build_once_whatever_their_times(build):
    built, main, out, _, run = build
    run()
    run()
    assert len(built) == 1 and os.path.exists(scala_build.digest_file(out))
    os.utime(a_source(main), (1, 1))  # a checkout gives the files new times, not new contents
    os.utime(out, (0, 0))
    run()
    assert len(built) == 1


def test_a_changed_source_builds_again(build):
    built, main, _, _, run = build
    run()
    with open(a_source(main), "a") as f:
        f.write("\n// changed\n")
    run()
    run()
    assert len(built) == 2


def test_a_source_saved_during_the_build_builds_again(build):
    """The digest recorded is that of the inputs read before the compile started."""
    built, main, _, hooks, run = build
    hooks.append(lambda: open(a_source(main), "a").write("\n// saved while compiling\n"))
    run()
    run()
    assert len(built) == 2


def test_a_build_that_failed_builds_again(build):
    built, _, out, hooks, run = build

    def fail():
        raise RuntimeError("scalac failed")

    hooks.append(fail)
    with pytest.raises(RuntimeError):
        run()
    run()
    assert len(built) == 2 and open(out).read() == "jar 2"


def test_a_build_leaves_only_its_jar_beside_it(build):
    """The jar and the digest of its inputs, and no lock file beside them (the package's `jars/`
    folder is in the checkout)."""
    _, _, out, _, run = build
    run()
    assert sorted(os.listdir(os.path.dirname(out))) == sorted([os.path.basename(out), os.path.basename(out) + ".digest"])
