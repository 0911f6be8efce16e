"""docs/contract.md, "Sliding windows": the example every suite checks first. Rows A@10 B@14
C@17 D@25 E@31 of one group, size 10, here in microseconds so that the windows are exactly the
contract's table."""
from __future__ import annotations

ROWS = [("A", 10), ("B", 14), ("C", 17), ("D", 25), ("E", 31)]
SIZE = "10 microseconds"
# Window start, end (microseconds), the rows in the window.
WINDOWS = [
    (0, 10, "A"),
    (4, 14, "AB"),
    (7, 17, "ABC"),
    (11, 21, "BC"),
    (15, 25, "CD"),  # left of D and right of B: once
    (18, 28, "D"),
    (21, 31, "DE"),
    (26, 36, "E"),
]

# As events of windows_util.events_df (case 0, group "g", value and id 1 for A ... 5 for E), and
# each window with the values of its rows.
EVENTS = [(0, "g", t, i, i) for i, (_, t) in enumerate(ROWS, start=1)]
EVENT_WINDOWS = [((start, end), [ord(r) - ord("A") + 1 for r in rows]) for start, end, rows in WINDOWS]
