"""Floating-point aggregates of sliding windows are as accurate as Spark's own GROUP BY over the
same rows. Both are measured against an exact reference (`fractions.Fraction` moments, rounded
once: reference.ExactMoments), over generated inputs that are hard for the moment formulas: values
around 1.7e15 (a time in microseconds as a double) that follow time, mixed magnitudes, and many
rows per time.

Each window's rows reach the operator in time order and are merged in that order; Spark's GROUP
BY (here grouped by a window id, over the same rows joined to each window) folds them in no
particular order. A time-ordered fold one element at a time made the rounding of the running mean
add up: regr_slope and var_pop of windows of ~500 rows were 10-20 times less accurate than the
GROUP BY. The operator now builds its aggregates from balanced merges (MergeCounter).
"""
from __future__ import annotations

import bisect
import math
import random
import statistics
from typing import Callable, Dict, List, Tuple

import pytest

from reference import ExactMoments, sliding_windows

# Long runs over inputs hard for the moment formulas.
pytestmark = pytest.mark.slow

BASE = 1_700_000_000_000_000  # micro-seconds: 2023-11-14
SIZE = 10_000_000  # a 10-second window

# How much worse than the GROUP BY our errors may be, over the windows of one scenario: at the
# median and at the largest relative error. A window's aggregate is two parts merged, its older
# and its newer rows, whose means are about half a window apart: that merge rounds each part's
# mean once more where it weighs most, which a fold of unordered rows does not. It measures at up
# to ~4x the GROUP BY's median error (covar_pop of "offset pairs"); the largest errors are no
# larger than the GROUP BY's. A fold in time order, one partial at a time (the code before
# MergeCounter), measured 10-25x at the median.
FACTOR = 5.0
# Errors below this are rounding of the result itself (a few ulps); no ratio is asked there.
FLOOR = 1e-14


def scenario_time_as_value(rnd: random.Random) -> List[Tuple[int, float, float]]:
    """y = a trend in time plus noise, x = the time itself as a double (around 1.7e15)."""
    rows = []
    for _ in range(2000):
        t = BASE + rnd.randrange(4 * SIZE)
        rows.append((t, (t - BASE) * 3e-6 + rnd.gauss(0, 5), float(t)))
    return rows


def scenario_mixed_magnitudes(rnd: random.Random) -> List[Tuple[int, float, float]]:
    """y around 1e9 with small variations, x small; 20 rows per time (multi-row partials)."""
    rows = []
    for i in range(100):
        t = BASE + i * (SIZE // 25) + rnd.randrange(1000)
        for _ in range(20):
            rows.append((t, 1e9 + rnd.gauss(0, 1e3) + i * 10.0, rnd.uniform(-1, 1) * 10 ** rnd.randrange(-3, 4)))
    return rows


def scenario_offset_pairs(rnd: random.Random) -> List[Tuple[int, float, float]]:
    """Both columns far from zero and correlated with time: y = 2e12 + 5 t, x = t / 1e3."""
    rows = []
    for _ in range(1500):
        t = BASE + rnd.randrange(3 * SIZE)
        rows.append((t, 2e12 + 5.0 * (t - BASE) + rnd.gauss(0, 1e4), t / 1e3 + rnd.gauss(0, 1)))
    return rows


def scenario_time_as_dependent(rnd: random.Random) -> List[Tuple[int, float, float]]:
    """The same with the columns swapped: the single-column statistics are of the time."""
    return [(t, x, y) for t, y, x in scenario_time_as_value(rnd)]


SCENARIOS: Dict[str, Callable[[random.Random], List[Tuple[int, float, float]]]] = {
    "time as value": scenario_time_as_value,
    "time as dependent": scenario_time_as_dependent,
    "mixed magnitudes": scenario_mixed_magnitudes,
    "offset pairs": scenario_offset_pairs,
}


def _call(name: str) -> str:
    return f"{name}(y)" if name in ("avg", "var_samp", "var_pop", "stddev_samp", "stddev_pop") \
        else f"{name}(y, x)"


def _relative(value, exact) -> float:
    if exact == 0:
        return abs(value)
    return abs(value - exact) / abs(exact)


def measure(spark, rows) -> Dict[str, Tuple[List[float], List[float]]]:
    """{function: (our relative errors, the GROUP BY's)} over the windows where it is defined."""
    rows = sorted(rows)
    times = [t for t, _, _ in rows]
    exact = ExactMoments([(y, x) for _, y, x in rows])
    # Tables come in no particular order: the GROUP BY folds each window's rows in the order
    # of this one (a fold in time order would be the less accurate one, see the module doc).
    shuffled = [(i, t, y, x) for i, (t, y, x) in enumerate(rows)]
    random.Random(len(rows)).shuffle(shuffled)
    spark.createDataFrame(shuffled, "id long, t long, y double, x double") \
        .selectExpr("*", "timestamp_micros(t) AS ts").createOrReplaceTempView("accuracy_events")
    windows = sorted((a, e) for _, a, e in
                     sliding_windows(rows, SIZE, key=lambda r: 0, time=lambda r: r[0]))
    spark.createDataFrame([(i, a, e) for i, (a, e) in enumerate(windows)], "wi long, a long, e long") \
        .createOrReplaceTempView("accuracy_windows")

    calls = ", ".join(f"{_call(n)} AS {n}" for n in ExactMoments.NAMES)
    ours = {(r.s, r.e): r for r in spark.sql(f"""
        SELECT unix_micros(w.start) AS s, unix_micros(w.end) AS e, *
        FROM (SELECT sliding_window(ts, '{SIZE} microseconds') AS w, {calls}
              FROM accuracy_events GROUP BY sliding_window(ts, '{SIZE} microseconds'))""").collect()}
    grouped = {r.wi: r for r in spark.sql(f"""
        SELECT wi, {calls} FROM accuracy_windows JOIN accuracy_events ON t BETWEEN a AND e
        GROUP BY wi""").collect()}
    assert set(ours) == set(windows)

    errors: Dict[str, Tuple[List[float], List[float]]] = {n: ([], []) for n in ExactMoments.NAMES}
    for i, (a, e) in enumerate(windows):
        lo, hi = bisect.bisect_left(times, a), bisect.bisect_right(times, e)
        for name in ExactMoments.NAMES:
            x = exact.statistic(name, lo, hi)
            ours_value, spark_value = ours[(a, e)][name], grouped[i][name]
            if x is None or spark_value is None or math.isnan(spark_value):
                continue
            assert ours_value is not None and not math.isnan(ours_value), (name, a, e, spark_value)
            errors[name][0].append(_relative(ours_value, x))
            errors[name][1].append(_relative(spark_value, x))
    return errors


def _summary(errs: List[float]) -> Tuple[float, float]:
    return statistics.median(errs), max(errs)


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_statistical_aggregates_are_as_accurate_as_group_by(spark, scenario):
    errors = measure(spark, SCENARIOS[scenario](random.Random(15)))
    too_large = []
    for name, (ours, grouped) in errors.items():
        assert len(ours) > 100, f"{name}: only {len(ours)} windows to compare"
        for what, mine, theirs in zip(("median", "max"), _summary(ours), _summary(grouped)):
            if mine > FACTOR * theirs + FLOOR:
                too_large.append(f"{name} {what}: {mine:.2e} against {theirs:.2e} for GROUP BY")
    assert not too_large, f"{scenario}: " + "; ".join(too_large)


if __name__ == "__main__":  # prints the figures (docs/user-guide.md, "Floating-point results")
    import sys

    from pyspark.sql import SparkSession

    import sliding_window_agg as swa

    session = swa.configure(SparkSession.builder.master("local[2]")
                            .config("spark.sql.session.timeZone", "UTC")
                            .config("spark.ui.enabled", "false")).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    for scenario in sys.argv[1:] or sorted(SCENARIOS):
        print(f"## {scenario}")
        for name, (ours, grouped) in measure(session, SCENARIOS[scenario](random.Random(15))).items():
            (om, ox), (gm, gx) = _summary(ours), _summary(grouped)
            print(f"{name}: median {om:.1e} max {ox:.1e} | GROUP BY median {gm:.1e} max {gx:.1e}")
