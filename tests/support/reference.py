"""Brute-force references for sliding windows (docs/contract.md, "Sliding windows") and batch
windows ("Batch windows"), written from the spec, independent of the implementation (no sweep, no
queue: every window is found and filled by direct enumeration).

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
    """The contract's equivalent definition, by exhaustion over every interval [a, a + size] that
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
    """Every batch window (docs/contract.md, "Batch windows") of a batch query, with the rows it
    holds, in the order they were applied. Windows are (key, start, end) with start inclusive, end
    exclusive.

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


class ExactMoments:
    """Exact sums of (y, x) pairs (doubles, taken at their exact binary values) over any
    contiguous range of a sequence, from prefix sums of `fractions.Fraction`s: the reference for
    the floating-point aggregates, each computed once from exact moments and rounded once.

    `statistic(name, lo, hi)` evaluates Spark's statistical aggregates over pairs[lo:hi] (pairs
    with a null are skipped, as Spark skips them), with Spark's definitions: `y` is the
    dependent variable (the first argument of regr_* and covar_*). Returns None where Spark returns
    null or NaN (no pair, a zero variance in a ratio, n = 1 for sample statistics).
    """

    NAMES = ("avg", "var_samp", "var_pop", "stddev_samp", "stddev_pop", "covar_samp",
             "covar_pop", "corr", "regr_slope", "regr_intercept", "regr_r2", "regr_sxx",
             "regr_syy", "regr_sxy", "regr_avgx", "regr_avgy")

    def __init__(self, pairs: Sequence[Tuple[Optional[float], Optional[float]]]):
        from fractions import Fraction

        zero = Fraction(0)
        # Prefix sums: pairs n, sx, sy, sxx, syy, sxy; then y alone (rows with a non-null y,
        # for avg and the single-column statistics): ny, sy1, syy1.
        sums = [0, zero, zero, zero, zero, zero, 0, zero, zero]
        self._prefix = [tuple(sums)]
        for y, x in pairs:
            if y is not None:
                fy = Fraction(y)
                sums[6] += 1
                sums[7] += fy
                sums[8] += fy * fy
                if x is not None:
                    fx = Fraction(x)
                    sums[0] += 1
                    sums[1] += fx
                    sums[2] += fy
                    sums[3] += fx * fx
                    sums[4] += fy * fy
                    sums[5] += fx * fy
            self._prefix.append(tuple(sums))

    def _sums(self, lo: int, hi: int):
        return tuple(b - a for a, b in zip(self._prefix[lo], self._prefix[hi]))

    def statistic(self, name: str, lo: int, hi: int) -> Optional[float]:
        import math

        n, sx, sy, sxx, syy, sxy, ny, sy1, syy1 = self._sums(lo, hi)
        if name in ("avg", "var_samp", "var_pop", "stddev_samp", "stddev_pop"):
            if ny == 0:
                return None
            m2 = syy1 - sy1 * sy1 / ny  # the single-column statistics are of y
            if name == "avg":
                return float(sy1 / ny)
            if name.endswith("_samp") and ny == 1:
                return None
            var = m2 / (ny - 1 if name.endswith("_samp") else ny)
            return float(var) if name.startswith("var") else math.sqrt(float(var))
        if n == 0:
            return None
        cxx = sxx - sx * sx / n
        cyy = syy - sy * sy / n
        cxy = sxy - sx * sy / n
        if name == "covar_pop":
            return float(cxy / n)
        if name == "covar_samp":
            return None if n == 1 else float(cxy / (n - 1))
        if name == "regr_sxx":
            return float(cxx)
        if name == "regr_syy":
            return float(cyy)
        if name == "regr_sxy":
            return float(cxy)
        if name == "regr_avgx":
            return float(sx / n)
        if name == "regr_avgy":
            return float(sy / n)
        if name == "corr":
            if cxx == 0 or cyy == 0:
                return None
            r2 = cxy * cxy / (cxx * cyy)
            return math.copysign(math.sqrt(float(r2)), float(cxy))
        if name == "regr_slope":
            return None if cxx == 0 else float(cxy / cxx)
        if name == "regr_intercept":
            return None if cxx == 0 else float((sy - cxy / cxx * sx) / n)
        if name == "regr_r2":
            if cxx == 0:
                return None
            return 1.0 if cyy == 0 else float(cxy * cxy / (cxx * cyy))
        raise ValueError(name)


def trailing_frames(
    rows: Sequence[Any],
    size: int,
    key: Callable[[Any], Hashable],
    time: Callable[[Any], Any],
    lag: int = 0,
) -> List[List[Any]]:
    """The frame of each row of `rows` (in their order) under `RANGE BETWEEN size PRECEDING AND
    CURRENT ROW` (`lag` 0) or `AND lag PRECEDING`, partitioned by `key` and ordered by `time`: the
    rows of its partition whose time is in [t - size, t - lag]; a row with a null time has the rows
    of its partition with a null time."""
    frames = []
    for r in rows:
        t = time(r)
        frames.append([o for o in rows if key(o) == key(r) and (
            (t is None and time(o) is None) or
            (t is not None and time(o) is not None and t - size <= time(o) <= t - lag))])
    return frames
