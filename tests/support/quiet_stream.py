"""Small streams that go quiet, for the tests of windows (and trailing rows) that close when the
input stops (tests/test_idle_timeout.py, tests/test_trailing_idle.py,
tests/test_declarative_pipelines.py): JSON files of (key, time, value) rows and their windows by
the brute-force references; waiting for a running query, and what its explain() prints."""
from __future__ import annotations

import json
import os
import time
from typing import Dict, List, Sequence, Tuple

from reference import batch_windows, sliding_windows

SEC = 1_000_000
BASE = 1_700_000_000 * SEC
SIZE = 2 * SEC
SIZE_TEXT = "2 seconds"
DELAY_TEXT = "1 second"
IDLE_CONF = "spark.sql.slidingWindow.idleTimeout"
AT_END_CONF = "spark.sql.slidingWindow.closeAtEndOfInput"
SCHEMA = "k string, t long, v long"

Event = Tuple[str, int, int]  # (key, time in microseconds, value)


def write_file(folder: str, name: str, events: Sequence[Event]) -> None:
    """One JSON file, written whole then moved in, so that the file source never sees it half
    written."""
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(os.path.dirname(folder), f".{name}.tmp")
    with open(tmp, "w") as out:
        for k, t, v in events:
            out.write(json.dumps({"k": k, "t": t, "v": v}) + "\n")
    os.replace(tmp, os.path.join(folder, name))


def first_events() -> List[Event]:
    """Three keys over 5 seconds of event time, with equal times and gaps wider than the size."""
    return [("a", BASE, 1), ("a", BASE + SEC, 2), ("a", BASE + SEC, 3), ("a", BASE + 4 * SEC, 4),
            ("b", BASE + 500_000, 5), ("b", BASE + 5 * SEC, 6),
            ("c", BASE + 2 * SEC, 7)]


def later_events(at: int = BASE + 60 * SEC) -> List[Event]:
    """Rows far past what any idle close of first_events() emitted."""
    return [("a", at, 10), ("a", at + SEC, 11), ("d", at + 3 * SEC, 12)]


def expected(events: Sequence[Event], function: str, size: int = SIZE) -> Dict[Tuple[str, int, int], Tuple[int, int]]:
    """(key, start, end) -> (count, sum) of every window of `events`; batch windows' end is
    exclusive, as the `w` column shows it."""
    found = (sliding_windows if function == "sliding" else batch_windows)(
        events, size, key=lambda e: e[0], time=lambda e: e[1])
    return {(k, s, e): (len(m), sum(x[2] for x in m)) for (k, s, e), m in found.items()}


WAIT = 60  # seconds: a whole idle close takes timeout + size + delay + a trigger, about 5 s


def wait_for(condition, timeout: float = WAIT) -> bool:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def explain_text(query) -> str:
    """What `query.explain()` prints (EXPLAIN of its last micro-batch)."""
    jquery = query._jsq
    try:
        return jquery.explainInternal(False)
    except Exception:  # the wrapper without it: the query itself
        return jquery.streamingQuery().explainInternal(False)
