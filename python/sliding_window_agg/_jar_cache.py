"""Jars built on first use: the jar of the user's Spark when the installation carries none.

An installation carries the jars it was built with (a wheel made by `make wheel` carries every
supported Spark's) and the Scala sources (``scala-src/`` in the package; ``scala/src/main`` of a
checkout). For any other supported Spark, the jar is built once, on first use, with that Spark's
own Scala compiler (`_jar_build`), and kept in the cache folder: ``$SLIDING_WINDOW_AGG_CACHE``,
else ``$XDG_CACHE_HOME/sliding-window-agg``, else ``~/.cache/sliding-window-agg``, under
``<package version>-<digest of the sources>/``, so that changed sources build again.
"""
from __future__ import annotations

import contextlib
import os
import sys
import time
import zipfile
from typing import Iterator, Optional

from . import _jar_build
from ._supported import BUILD_INFO_ENTRY, jar_file_name
from ._version import __version__

CACHE_ENV = "SLIDING_WINDOW_AGG_CACHE"
"""The environment variable that sets the cache folder."""

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def sources_dir() -> Optional[str]:
    """The Scala sources the installation carries (the ``main`` folder `_jar_build` compiles),
    or None."""
    installed = os.path.join(PACKAGE_DIR, "scala-src")
    checkout = os.path.join(os.path.dirname(os.path.dirname(PACKAGE_DIR)), "scala", "src", "main")
    for main in (installed, checkout):
        if os.path.isdir(os.path.join(main, "scala")):
            return main
    return None


def cache_root() -> str:
    """The folder of the jars built on first use."""
    if os.environ.get(CACHE_ENV):
        return os.path.abspath(os.path.expanduser(os.environ[CACHE_ENV]))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "sliding-window-agg")


def sources_digest(main: str) -> str:
    """A digest of every source and resource of ``main`` (all Spark versions' shims included) and
    of the compile's own code."""
    return _jar_build.files_digest(_jar_build.resources(main) + [_jar_build.__file__], main)[:16]


def cache_folder(main: str) -> str:
    """Where the jars built from the sources of ``main`` by this package version are kept."""
    return os.path.join(cache_root(), f"{__version__}-{sources_digest(main)}")


def cache_path(minor: str) -> Optional[str]:
    """Where the jar of a Spark minor version built from this installation's sources is kept
    (whether it is there or not), or None without sources."""
    main = sources_dir()
    return main and os.path.join(cache_folder(main), jar_file_name(minor))


def cached_jar(minor: str) -> Optional[str]:
    """The jar built earlier for a Spark minor version from this installation's sources, or None
    (also when the file there is not a jar it can use, `jar_problem`: `build` builds it again)."""
    path = cache_path(minor)
    return path if path and os.path.exists(path) and jar_problem(path) is None else None


def jar_problem(path: str, needs_record: bool = True) -> Optional[str]:
    """Why the jar at ``path`` cannot be used, or None: it is not a zip file that can be read
    (empty, cut short by a full disk or an interrupted copy), or, with ``needs_record``, it lacks
    the entry where the build records the Spark it was compiled against (every jar this package
    builds has it)."""
    try:
        with zipfile.ZipFile(path) as z:
            if BUILD_INFO_ENTRY in z.namelist():
                z.read(BUILD_INFO_ENTRY)  # checks the entry's CRC
            elif needs_record:
                return f"it lacks {BUILD_INFO_ENTRY}, which the build writes"
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        return f"{type(e).__name__}: {e}"
    return None


@contextlib.contextmanager
def _locked(folder: str) -> Iterator[None]:
    """Holds the folder's lock: one process builds while the others wait for its jar."""
    os.makedirs(folder, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # not POSIX: builds may overlap, and each writes its jar whole
        yield
        return
    with open(os.path.join(folder, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def build(jars: str) -> str:
    """The jar for the Spark of the ``jars`` folder, built from this installation's sources
    unless it is in the cache; the build prints its progress on stderr."""
    main = sources_dir()
    if main is None:
        raise FileNotFoundError(
            f"This installation of sliding-window-agg carries neither a jar for Spark "
            f"{_jar_build.spark_version(jars)} nor the Scala sources to build one: install it from "
            "a checkout (pip install <checkout>) or from a wheel built there by `make wheel`.")
    folder = cache_folder(main)
    out = os.path.join(folder, _jar_build.jar_name(jars))
    with _locked(folder):
        problem = jar_problem(out) if os.path.exists(out) else None
        if os.path.exists(out) and problem is None:  # built by another process meanwhile
            return out
        compiler = f"the Scala {_jar_build.scala_version(jars)} compiler of {os.path.dirname(jars)}"
        if problem:  # a build or copy cut short, a full disk: the lock is held, so build it again
            say(f"{out} is not a readable jar ({problem}): building it again with {compiler} "
                "(about a minute)")
        else:
            say(f"no jar for Spark {_jar_build.spark_version(jars)} yet: building it once with "
                f"{compiler} into {folder} (about a minute)")
        start = time.monotonic()
        _jar_build.build_jar(main, jars, out, __version__)
        say(f"built {os.path.basename(out)} in {time.monotonic() - start:.0f} s")
    _forget_older_builds(out)
    return out


def _forget_older_builds(jar: str) -> None:
    """Removes the jars of the same Spark built from other sources or package versions."""
    root, name, keep = cache_root(), os.path.basename(jar), os.path.dirname(jar)
    for entry in os.listdir(root):
        folder = os.path.join(root, entry)
        if folder != keep and os.path.exists(os.path.join(folder, name)):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(folder, name))
                if not [f for f in os.listdir(folder) if f != ".lock"]:
                    os.unlink(os.path.join(folder, ".lock"))
                    os.rmdir(folder)


def say(message: str) -> None:
    sys.stderr.write(f"sliding-window-agg: {message}\n")
    sys.stderr.flush()
