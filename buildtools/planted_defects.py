"""Planted defects: shows that the fast test tier (`make test-fast`) catches realistic bugs.

Each defect of DEFECTS is one exact text replacement in one source file: an off-by-one, a bound
made strict, a field dropped, an argument order swapped. For each, the script copies the checkout
(its files known to git, without build outputs) into a scratch folder, plants the defect there,
runs the fast tier in the copy and records whether it failed (the defect is caught) and which test
failed first. It then prints a table, and exits with status 1 if a defect was missed.

The fast tier runs in stages, each stopping at its first failure: the ScalaTest suites
(tests/test_scala_unit.py, which compiles the planted sources with sbt and fails soonest), then the test
module that the defect's entry names as the one expected to catch it, then the rest of the tier.
A defect is caught when any stage fails; the table says by which test.

A replacement whose `old` text is not found exactly once in its file stops the script before
anything runs (`--check` only checks that): a refactoring that moves the code fails the check
instead of leaving a defect that no longer plants anything. docs/development.md, "Planted
defects", lists them.

    python3 buildtools/planted_defects.py --list
    python3 buildtools/planted_defects.py --check
    python3 buildtools/planted_defects.py [--only NAME ...] [--command CMD] [--keep]
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import List, Optional, Sequence

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCALA = "scala/src/main/scala/org/apache/spark/sql/slidingwindow/"
SCALA_SUITES = "tests/test_scala_unit.py"
# The test that checks this list against the sources: in a planted copy, it would fail on the
# planted file itself, and catch every defect for nothing. It skips there (PLANTED_ENV is set).
SELF_TEST = "tests/test_planted_defects.py"
PLANTED_ENV = "SWA_PLANTED_DEFECT"
FAST_MARKS = "not slow and not other_sparks_jars"
# The fast tier, as `make test-fast` runs it; the stages add their paths.
PYTEST = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", FAST_MARKS]
WORKERS = ["-n", "2", "--dist", "loadgroup"]
LOGS = os.path.join(ROOT, "build", "planted-defects")


@dataclasses.dataclass(frozen=True)
class Defect:
    name: str
    breaks: str  # what it breaks, one line
    file: str  # relative to the checkout
    old: str  # found exactly once in `file`
    new: str
    caught_by: str  # the test module expected to catch it (run right after the Scala suites)


DEFECTS: List[Defect] = [
    # The sliding window algorithm.
    Defect("sweep-closes-early",
           "a new time closes the windows that end at it before it is pushed: they lose its rows",
           SCALA + "windows/SlidingWindowSweep.scala",
           "if (hasPrevious && closeThrough(time - 1, sink, budget)) return false",
           "if (hasPrevious && closeThrough(time, sink, budget)) return false",
           SCALA_SUITES),
    Defect("sweep-right-window-start",
           "a time's right window starts at the time instead of 1 µs after it",
           SCALA + "windows/SlidingWindowSweep.scala",
           "if (gap > 0 && gap - 1 <= sizeMicros) rightStarts.add(previous + 1)",
           "if (gap > 0 && gap - 1 <= sizeMicros) rightStarts.add(previous)",
           SCALA_SUITES),
    # Batch windows.
    Defect("batch-stream-time-goes-back",
           "batch_window's stream time follows an out-of-order row back: it reopens an earlier window",
           SCALA + "windows/StreamTimeWindows.scala",
           "if (!timeKnown || t > time) {",
           "if (!timeKnown || t != time) {",
           "tests/test_batch_window.py"),
    # Aggregation.
    Defect("two-stacks-evicts-window-start",
           "Two-Stacks evicts the partial at the window's start time too (`<=` for `<`)",
           SCALA + "aggregation/TwoStacks.scala",
           "if (front.topTime < time) front.pop() else more = false",
           "if (front.topTime <= time) front.pop() else more = false",
           SCALA_SUITES),
    Defect("merge-partials-order",
           "imperative and typed aggregates merge two partials newer first (collect_list out of order)",
           SCALA + "aggregation/AggregateBuffers.scala",
           "      assign(scratch, older)\n      merge(scratch, newer)\n",
           "      assign(scratch, newer)\n      merge(scratch, older)\n",
           SCALA_SUITES),
    # State format 2 of sliding windows.
    Defect("record-codec-drops-indexed",
           "a group's record is written without its `indexed` field (read back as 0)",
           SCALA + "state/sliding/GroupRecordCodec.scala",
           "    Platform.putLong(bytes, base + 8, record.indexed)\n",
           "",
           SCALA_SUITES),
    Defect("chunk-boundary",
           "a read from the last time of a chunk does not load that chunk (`>` for `>=`)",
           SCALA + "state/sliding/RecordChunks.scala",
           "if (before != null && before.getValue.last >= from) loadChunk(kind, before.getKey)",
           "if (before != null && before.getValue.last > from) loadChunk(kind, before.getKey)",
           SCALA_SUITES),
    Defect("time-rows-higher-index",
           "TimeRows.higherIndex returns the row at the time itself, not the one after it",
           SCALA + "state/sliding/TimeRows.scala",
           "if (time == Long.MaxValue) count else ceilingIndex(time + 1)",
           "if (time == Long.MaxValue) count else ceilingIndex(time)",
           SCALA_SUITES),
    # Trailing frames and their state.
    Defect("trailing-frame-bound",
           "a trailing frame RANGE BETWEEN s PRECEDING drops the rows exactly s before (bound off by 1 µs)",
           SCALA + "windows/TrailingWindows.scala",
           "queues(i).evictBefore(SaturatingTime.sub(time, sizes(i)))",
           "queues(i).evictBefore(SaturatingTime.sub(time, sizes(i) - 1))",
           "tests/test_trailing_windows_batch.py"),
    Defect("trailing-lag-bound",
           "a lag frame (AND l PRECEDING) leaves out the rows exactly l before",
           SCALA + "windows/TrailingWindows.scala",
           "while (!fifo.isEmpty && fifo.firstTime <= end) {",
           "while (!fifo.isEmpty && fifo.firstTime < end) {",
           "tests/test_trailing_windows_batch.py"),
    Defect("stored-stack-chunk-order",
           "a frame's stack, once its tail runs out, reads back its oldest chunk instead of its newest",
           SCALA + "stored/StoredStack.scala",
           "val chunk = chunks.take(group, id, chunkCount)",
           "val chunk = chunks.take(group, id, 0)",
           SCALA_SUITES),
    Defect("trailing-late-at-watermark",
           "a trailing row exactly at the watermark for late rows is kept (and emitted) instead of dropped",
           SCALA + "state/trailing/PendingParts.scala",
           "if (t <= lateMicros) late.add(row, t)",
           "if (t < lateMicros) late.add(row, t)",
           SCALA_SUITES),
    # Watermarks, restarts and idle close.
    Defect("late-at-watermark",
           "a sliding or batch window row exactly at the watermark for late rows is not late",
           SCALA + "execution/StreamingWindowsProcessor.scala",
           "else if (row.getLong(timeOrdinal) <= late) { lateRows.add(row, row.getLong(timeOrdinal)); false }",
           "else if (row.getLong(timeOrdinal) < late) { lateRows.add(row, row.getLong(timeOrdinal)); false }",
           SCALA_SUITES),
    Defect("previous-batch-windows-again",
           "append mode emits again the windows that end exactly at the previous micro-batch's watermark",
           SCALA + "execution/AppendVisits.scala",
           "sink(group, (_, end) => lateEventsWatermarkMicros.forall(end > _))",
           "sink(group, (_, end) => lateEventsWatermarkMicros.forall(end >= _))",
           "tests/test_sliding_streaming.py"),
    Defect("restart-stale-record-cache",
           "a task reads the records its executor cached under another commit (a rerun after a restart)",
           SCALA + "state/sliding/RecordCache.scala",
           "if (token != 0L && entry.token == token) entry.cache.get else null",
           "if (token != 0L) entry.cache.get else null",
           SCALA_SUITES),
    Defect("idle-clock-goes-back",
           "the idle clock's eviction watermark forgets the previous micro-batch's: it can move backwards",
           SCALA + "idle/IdleClock.scala",
           "evictionMs = Seq(sparkEvictionMs, before, idle, atEnd).max,",
           "evictionMs = Seq(sparkEvictionMs, idle, atEnd).max,",
           SCALA_SUITES),
    # Late rows as data.
    Defect("late-rows-published-before-commit",
           "a late-rows table publishes a micro-batch's files before the micro-batch has committed",
           SCALA + "late/LateRowsLog.scala",
           "while (batch <= upTo && committed(batch)) {",
           "while (batch <= upTo) {",
           SCALA_SUITES),
    Defect("late-rows-of-an-earlier-attempt-kept",
           "a micro-batch run again publishes the files an earlier attempt of it left",
           SCALA + "late/LateRowsLog.scala",
           "    fs.delete(LateRowsLog.stagingOf(location, batch), true)\n    if (restarted) {",
           "    if (restarted) {",
           SCALA_SUITES),
    Defect("late-rows-data-of-a-killed-run-kept",
           "a run's first micro-batch keeps the data files a killed attempt of it left (a partition may hold other rows)",
           SCALA + "late/LateRowsLog.scala",
           "filter(_.getPath.getName.startsWith(prefix))",
           "filter(_.getPath.getName.startsWith(prefix + \"-\"))",
           SCALA_SUITES),
]


def by_name(names: Sequence[str]) -> List[Defect]:
    known = {d.name: d for d in DEFECTS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown defects {unknown}; --list shows them")
    return [known[n] for n in names]


def check(defects: Sequence[Defect], root: str = ROOT) -> None:
    """Fails loudly unless each defect's `old` text occurs exactly once in its file."""
    names = [d.name for d in DEFECTS]
    assert len(names) == len(set(names)), f"defect names repeated: {names}"
    problems = []
    for d in defects:
        path = os.path.join(root, d.file)
        if not os.path.exists(path):
            problems.append(f"{d.name}: no file {d.file}")
            continue
        with open(path, encoding="utf-8") as f:
            count = f.read().count(d.old)
        if count != 1:
            problems.append(f"{d.name}: its `old` text occurs {count} times in {d.file}, not once:\n    {d.old!r}")
        if d.old == d.new:
            problems.append(f"{d.name}: `old` and `new` are the same")
        if not os.path.exists(os.path.join(root, d.caught_by)):
            problems.append(f"{d.name}: no test module {d.caught_by}")
    if problems:
        raise SystemExit("planted defects out of date with the sources:\n  " + "\n  ".join(problems))


def copy_checkout(to: str) -> None:
    """The checkout's files known to git (tracked, or new and not ignored), as they are now: no
    build outputs (build/, the package's jars), so the copy compiles its own jar."""
    listing = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             cwd=ROOT, check=True, stdout=subprocess.PIPE).stdout.decode()
    for rel in filter(None, listing.split("\0")):
        source = os.path.join(ROOT, rel)
        if not os.path.isfile(source):  # deleted in the work tree
            continue
        target = os.path.join(to, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(source, target)


def plant(defect: Defect, root: str) -> None:
    path = os.path.join(root, defect.file)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert text.count(defect.old) == 1, defect.name
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(defect.old, defect.new))


def stages(defect: Defect, command: Optional[str]) -> List[List[str]]:
    if command:
        return [["bash", "-c", command]]
    runs = [PYTEST + [SCALA_SUITES]]
    ignored = [SCALA_SUITES, SELF_TEST]
    if defect.caught_by != SCALA_SUITES:
        runs.append(PYTEST + WORKERS + [defect.caught_by])
        ignored.append(defect.caught_by)
    runs.append(PYTEST + WORKERS + [f"--ignore={p}" for p in ignored] + ["tests"])
    return runs


# pytest's summary line: FAILED <node id, whose parameters may hold spaces>[ - <message>]
_FAILED = re.compile(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$", re.M)
# ScalaTest's report through sbt (-oDF): "[info] TwoStacksSuite:", then "[info] - <test> *** FAILED ***",
# or a suite that could not run: "... with class name: <class> *** ABORTED ***".
_SUITE = re.compile(r"^\[info\] (\w+):$", re.M)
_SCALATEST_FAILURE = re.compile(r"^\[info\] - (.+?) \*\*\* FAILED \*\*\*|class name: ([\w.$]+) \*\*\* ABORTED \*\*\*", re.M)


def first_failure(output: str) -> str:
    """The first test that failed: a ScalaTest suite's test (Suite: test) or a pytest node id."""
    scalatest = _SCALATEST_FAILURE.search(output)
    if scalatest:
        if scalatest.group(2):
            return f"{scalatest.group(2).rsplit('.', 1)[-1]} (ScalaTest, aborted)"
        suites = _SUITE.findall(output, 0, scalatest.start())
        return f"{suites[-1] if suites else '?'}: {scalatest.group(1)} (ScalaTest)"
    found = _FAILED.search(output)
    if found:
        return found.group(1)
    return "(exit status only; see the log)"


@dataclasses.dataclass
class Outcome:
    defect: Defect
    caught: bool
    by: str
    seconds: float
    log: str


def run(defect: Defect, command: Optional[str], keep: bool, timeout: float) -> Outcome:
    scratch = tempfile.mkdtemp(prefix=f"planted-{defect.name}-")
    os.makedirs(LOGS, exist_ok=True)
    log_path = os.path.join(LOGS, f"{defect.name}.log")
    started = time.monotonic()
    caught, by = False, ""
    try:
        copy_checkout(scratch)
        plant(defect, scratch)
        env = dict(os.environ)
        python = os.path.join(scratch, "python")
        env["PYTHONPATH"] = python + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env.pop("SWA_OTHER_SPARKS_JARS", None)
        env[PLANTED_ENV] = defect.name
        with open(log_path, "w", encoding="utf-8") as log:
            log.write(f"defect {defect.name}: {defect.breaks}\n{defect.file}\n- {defect.old}\n+ {defect.new}\n")
            for argv in stages(defect, command):
                log.write(f"\n$ {shlex.join(argv)}\n")
                log.flush()
                left = timeout - (time.monotonic() - started)
                # A session of its own: on a timeout, its pytest workers and JVMs go with it.
                proc = subprocess.Popen(argv, cwd=scratch, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, start_new_session=True)
                try:
                    out, _ = proc.communicate(timeout=max(left, 1))
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    out, _ = proc.communicate()
                    log.write(out)
                    caught, by = True, f"TIMEOUT after {timeout:.0f} s (the tier hangs)"
                    break
                log.write(out)
                # pytest's status 5: the stage selected no test (all of it slow, say): not a failure.
                if proc.returncode not in (0, 5):
                    caught, by = True, first_failure(out)
                    break
    finally:
        if keep:
            print(f"  kept {scratch}", flush=True)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    return Outcome(defect, caught, by or "MISSED", time.monotonic() - started, log_path)


def table(rows: List[List[str]], header: List[str]) -> str:
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run these defects only")
    parser.add_argument("--list", action="store_true", help="list the defects and exit")
    parser.add_argument("--check", action="store_true",
                        help="only check that every defect's `old` text occurs exactly once")
    parser.add_argument("--command", help="run this shell command in each planted copy instead of the "
                        "fast tier's stages (PYTHONPATH is the copy's python/)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copies")
    parser.add_argument("--timeout", type=float, default=3600.0,
                        help="seconds per defect; a tier still running then counts as caught (it hangs)")
    options = parser.parse_args(argv)

    defects = by_name(options.only) if options.only else list(DEFECTS)
    if options.list:
        print(table([[d.name, d.file.replace(SCALA, ""), d.caught_by, d.breaks] for d in defects],
                    ["defect", "file", "expected to fail first", "what it breaks"]))
        return 0
    check(defects)
    if options.check:
        print(f"{len(defects)} planted defects, each found exactly once in its file")
        return 0

    outcomes = []
    for i, d in enumerate(defects, 1):
        print(f"[{i}/{len(defects)}] {d.name}: {d.breaks}", flush=True)
        o = run(d, options.command, options.keep, options.timeout)
        print(f"  {'caught by ' + o.by if o.caught else 'MISSED'} in {o.seconds:.0f} s (log: {o.log})", flush=True)
        outcomes.append(o)

    print()
    print(table([[o.defect.name, "caught" if o.caught else "MISSED", o.by if o.caught else "",
                  f"{o.seconds:.0f} s"] for o in outcomes], ["defect", "result", "first failing test", "time"]))
    missed = [o.defect.name for o in outcomes if not o.caught]
    if missed:
        print(f"\n{len(missed)} of {len(outcomes)} planted defects MISSED by the tests: {', '.join(missed)}")
        return 1
    print(f"\nall {len(outcomes)} planted defects caught")
    return 0


if __name__ == "__main__":
    sys.exit(main())
