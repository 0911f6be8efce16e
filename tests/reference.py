"""Brute-force references for sliding windows (SPEC section 2) and batch windows (section 3),
written from the spec, independent of the implementation (no sweep, no queue: every window is
found and filled by direct enumeration).

Times are integers in microseconds, the timestamp unit.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable, Dict, Hashable, Iterable, List, Optional, Sequence, Tuple

Window = Tuple[Hashable, int, int]  # (group key, start, end), both bounds inclusive


def sliding_windows(
    rows: Iterable[Any],
    size: int,
    key: Callable[[Any], Hashable],
    time: Callable[[Any], Any],
) -> Dict[Window, List[Any]]:
    """Every sliding window of every group, with the rows it holds.

    - rows with a null time belong to no window; a null key is a group of its own;
    - the left window of a row at t is [t - size, t];
    - the right window of a row at t is [t + 1, t + 1 + size], kept only if it holds a row;
    - a window is identified by its bounds: equal bounds are one window.
    """
    groups: Dict[Hashable, List[Any]] = defaultdict(list)
    for r in rows:
        if time(r) is not None:
            groups[key(r)].append(r)
    result: Dict[Window, List[Any]] = {}
    for k, members in groups.items():
        times = sorted({time(r) for r in members})
        candidates = set()
        for t in times:
            candidates.add((t - size, t))
            start, end = t + 1, t + 1 + size
            if any(start <= u <= end for u in times):
                candidates.add((start, end))
        for start, end in candidates:
            result[(k, start, end)] = [r for r in members if start <= time(r) <= end]
    return result


def distinct_row_sets(times: Sequence[int], size: int) -> set:
    """The SPEC's equivalent definition, by exhaustion over every interval [a, a + size] that
    can hold a row: the distinct non-empty sets of (indexes of) rows it holds."""
    if not times:
        return set()
    sets = set()
    for a in range(min(times) - size, max(times) + 1):
        held = frozenset(i for i, t in enumerate(times) if a <= t <= a + size)
        if held:
            sets.add(held)
    return sets


def batch_windows(
    rows: Iterable[Any],
    size: int,
    key: Callable[[Any], Hashable],
    time: Callable[[Any], Any],
    order: Optional[Callable[[Any], Any]] = None,
) -> Dict[Window, List[Any]]:
    """Every batch window (SPEC section 3) of a batch query, with the rows it holds, in the order
    they were applied. Windows are (key, start, end) with start inclusive, end exclusive.

    - rows with a null time belong to no window; a null key is a group of its own;
    - a group's rows are applied in time order, or by `order` when given (null first, ties by
      time, as ORDER BY order, time sorts them);
    - the stream time after a row is the largest time applied so far in its group;
    - the row goes to [floor(st / size) * size, floor(st / size) * size + size).
    """
    groups: Dict[Hashable, List[Any]] = defaultdict(list)
    for r in rows:
        if time(r) is not None:
            groups[key(r)].append(r)

    def applied(r):
        if order is None:
            return (time(r),)
        o = order(r)
        return (o is not None, o if o is not None else 0, time(r))

    result: Dict[Window, List[Any]] = {}
    for k, members in groups.items():
        stream_time = None
        for r in sorted(members, key=applied):
            stream_time = time(r) if stream_time is None else max(stream_time, time(r))
            start = (stream_time // size) * size
            result.setdefault((k, start, start + size), []).append(r)
    return result
