"""A call of every aggregate function of Spark's function registry, with each of its optional
arguments and flags changed in turn: the survey of tests/test_restart_aggregates.py.

The input columns (INPUT_SQL): a key `k`, the time `ts`, and two columns of each type the calls
take, so that a call changes its input without changing its types: `v`, `w` BIGINT; `d`, `e`
DOUBLE; `s`, `t` STRING; `b`, `c` BOOLEAN; `i` INT; `arr` ARRAY<BIGINT>.

CALLS maps each function name to a Call: `base`, the call as a query would write it, and
`changes`, calls that compute something else (another input column, another optional argument,
another flag). `runs` says whether the function runs on these columns (the functions that merge
sketches need sketches as input: they are planned, not run). A function the operator does not
accept names the error condition it gets instead (`refused`). The test fails for a function of
the registry that is missing here, so a new Spark's new aggregate is surveyed too.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

# The columns of every input row: (name, SQL type).
COLUMNS = [("k", "STRING"), ("ts", "TIMESTAMP"), ("v", "BIGINT"), ("w", "BIGINT"), ("d", "DOUBLE"),
           ("e", "DOUBLE"), ("s", "STRING"), ("t", "STRING"), ("b", "BOOLEAN"), ("c", "BOOLEAN"),
           ("i", "INT"), ("arr", "ARRAY<BIGINT>")]
SCHEMA = ", ".join(f"{n} {t}" for n, t in COLUMNS)

# Not aggregates of rows: the window functions themselves, GROUPING SETS markers, metric views.
NOT_AGGREGATES = {"sliding_window", "batch_window", "grouping", "grouping_id", "measure"}


# What approx_top_k_accumulate returns, for approx_top_k_combine (a sketch of column {}).
TOP_K_STATE = ("named_struct('sketch', unhex({}), 'maxItemsTracked', 100, "
               "'itemDataType', CAST(NULL AS STRING), 'itemDataTypeDDL', 'STRING')")


@dataclass(frozen=True)
class Call:
    base: str
    changes: List[str] = field(default_factory=list)
    runs: bool = True
    refused: Optional[str] = None


def _same(base: str, *changes: str, **kw) -> Call:
    return Call(base, list(changes), **kw)


CALLS: Dict[str, Call] = {
    "any": _same("any(b)", "any(c)"),
    "some": _same("some(b)", "some(c)"),
    "bool_or": _same("bool_or(b)", "bool_or(c)", "bool_and(b)"),
    "bool_and": _same("bool_and(b)", "bool_and(c)", "bool_or(b)"),
    "every": _same("every(b)", "every(c)"),
    "any_value": _same("any_value(v)", "any_value(v, true)", "any_value(w)"),
    "first": _same("first(v)", "first(v, true)", "first(w)", "last(v)"),
    "first_value": _same("first_value(v)", "first_value(v, true)", "first_value(w)"),
    "last": _same("last(v)", "last(v, true)", "last(w)", "first(v)"),
    "last_value": _same("last_value(v)", "last_value(v, true)", "last_value(w)"),
    "approx_count_distinct": _same("approx_count_distinct(v)", "approx_count_distinct(v, 0.1)",
                                   "approx_count_distinct(w)"),
    "approx_percentile": _same("approx_percentile(d, 0.5)", "approx_percentile(d, 0.25)",
                               "approx_percentile(d, 0.5, 100)", "approx_percentile(e, 0.5)",
                               "approx_percentile(d, array(0.5))"),
    "percentile_approx": _same("percentile_approx(d, 0.5, 1000)", "percentile_approx(d, 0.5, 100)",
                               "percentile_approx(d, 0.75, 1000)", "percentile_approx(e, 0.5, 1000)"),
    "approx_top_k": _same("approx_top_k(s, 2, 100)", "approx_top_k(s, 3, 100)", "approx_top_k(s, 2, 50)",
                          "approx_top_k(t, 2, 100)", runs=False),
    "approx_top_k_accumulate": _same("approx_top_k_accumulate(s, 100)", "approx_top_k_accumulate(s, 50)",
                                     "approx_top_k_accumulate(t, 100)", runs=False),
    "approx_top_k_combine": _same(f"approx_top_k_combine({TOP_K_STATE.format('s')}, 100)",
                                  f"approx_top_k_combine({TOP_K_STATE.format('s')}, 50)",
                                  f"approx_top_k_combine({TOP_K_STATE.format('t')}, 100)", runs=False),
    "array_agg": _same("array_agg(v)", "array_agg(w)", "collect_set(v)"),
    "collect_list": _same("collect_list(v)", "collect_list(w)", "collect_set(v)"),
    "collect_set": _same("collect_set(v)", "collect_set(w)", "collect_list(v)"),
    "collect_union": _same("collect_union(arr)", "collect_union(array(w))"),
    "avg": _same("avg(d)", "avg(e)", "try_avg(d)", "avg(d) FILTER (WHERE b)"),
    "mean": _same("mean(d)", "mean(e)"),
    "try_avg": _same("try_avg(d)", "try_avg(e)", "avg(d)"),
    "sum": _same("sum(v)", "sum(w)", "try_sum(v)", "sum(v) FILTER (WHERE b)",
                 "sum(v) FILTER (WHERE c)", "sum(v + 1)"),
    "try_sum": _same("try_sum(v)", "try_sum(w)", "sum(v)"),
    "bit_and": _same("bit_and(i)", "bit_and(i + 1)", "bit_or(i)"),
    "bit_or": _same("bit_or(i)", "bit_or(i + 1)", "bit_xor(i)"),
    "bit_xor": _same("bit_xor(i)", "bit_xor(i + 1)", "bit_and(i)"),
    "bitmap_construct_agg": _same("bitmap_construct_agg(bitmap_bit_position(v))",
                                  "bitmap_construct_agg(bitmap_bit_position(w))"),
    "bitmap_or_agg": _same("bitmap_or_agg(unhex(s))", "bitmap_or_agg(unhex(t))", "bitmap_and_agg(unhex(s))",
                           runs=False),
    "bitmap_and_agg": _same("bitmap_and_agg(unhex(s))", "bitmap_and_agg(unhex(t))", "bitmap_or_agg(unhex(s))",
                            runs=False),
    "corr": _same("corr(d, e)", "corr(e, d)", "corr(d, d)"),
    "covar_pop": _same("covar_pop(d, e)", "covar_pop(e, d)", "covar_samp(d, e)"),
    "covar_samp": _same("covar_samp(d, e)", "covar_samp(d, d)", "covar_pop(d, e)"),
    "count": _same("count(v)", "count(w)", "count(1)", "count(v) FILTER (WHERE b)"),
    "count_if": _same("count_if(v > 0)", "count_if(v > 1)", "count_if(v >= 0)", "count_if(w > 0)",
                      "count_if(b)"),
    "count_min_sketch": _same("count_min_sketch(v, 0.5D, 0.5D, 1)", "count_min_sketch(v, 0.25D, 0.5D, 1)",
                              "count_min_sketch(v, 0.5D, 0.75D, 1)", "count_min_sketch(v, 0.5D, 0.5D, 2)",
                              "count_min_sketch(w, 0.5D, 0.5D, 1)"),
    "histogram_numeric": _same("histogram_numeric(d, 3)", "histogram_numeric(d, 4)",
                               "histogram_numeric(e, 3)"),
    "hll_sketch_agg": _same("hll_sketch_agg(v, 12)", "hll_sketch_agg(v, 10)", "hll_sketch_agg(w, 12)"),
    "hll_union_agg": _same("hll_union_agg(unhex(s), false)", "hll_union_agg(unhex(s), true)",
                           "hll_union_agg(unhex(t), false)", runs=False),
    "kll_sketch_agg_bigint": _same("kll_sketch_agg_bigint(v)", "kll_sketch_agg_bigint(v, 100)",
                                   "kll_sketch_agg_bigint(w)"),
    "kll_sketch_agg_double": _same("kll_sketch_agg_double(d)", "kll_sketch_agg_double(d, 100)",
                                   "kll_sketch_agg_double(e)"),
    "kll_sketch_agg_float": _same("kll_sketch_agg_float(CAST(d AS FLOAT))",
                                  "kll_sketch_agg_float(CAST(d AS FLOAT), 100)",
                                  "kll_sketch_agg_float(CAST(e AS FLOAT))"),
    "kll_merge_agg_bigint": _same("kll_merge_agg_bigint(unhex(s))", "kll_merge_agg_bigint(unhex(s), 100)",
                                  "kll_merge_agg_bigint(unhex(t))", runs=False),
    "kll_merge_agg_double": _same("kll_merge_agg_double(unhex(s))", "kll_merge_agg_double(unhex(s), 100)",
                                  "kll_merge_agg_double(unhex(t))", runs=False),
    "kll_merge_agg_float": _same("kll_merge_agg_float(unhex(s))", "kll_merge_agg_float(unhex(s), 100)",
                                 "kll_merge_agg_float(unhex(t))", runs=False),
    "kurtosis": _same("kurtosis(d)", "kurtosis(e)", "skewness(d)"),
    "skewness": _same("skewness(d)", "skewness(e)", "kurtosis(d)"),
    "listagg": _same("listagg(s)", "listagg(s, ',')", "listagg(t)",
                     "listagg(s) WITHIN GROUP (ORDER BY v)"),
    "string_agg": _same("string_agg(s)", "string_agg(s, ',')", "string_agg(t)",
                        "string_agg(s) WITHIN GROUP (ORDER BY v)"),
    "max": _same("max(v)", "max(w)", "min(v)"),
    "min": _same("min(v)", "min(w)", "max(v)"),
    "max_by": _same("max_by(s, v)", "max_by(t, v)", "max_by(s, w)", "min_by(s, v)"),
    "min_by": _same("min_by(s, v)", "min_by(t, v)", "min_by(s, w)", "max_by(s, v)"),
    "median": _same("median(d)", "median(e)"),
    "mode": _same("mode(v)", "mode(v, true)", "mode(w)"),
    "percentile": _same("percentile(v, 0.5)", "percentile(v, 0.25)", "percentile(v, 0.5, 2)",
                        "percentile(w, 0.5)", "percentile(v, array(0.5))"),
    "percentile_cont": _same("percentile_cont(0.5) WITHIN GROUP (ORDER BY d)",
                             "percentile_cont(0.25) WITHIN GROUP (ORDER BY d)",
                             "percentile_cont(0.5) WITHIN GROUP (ORDER BY d DESC)",
                             "percentile_cont(0.5) WITHIN GROUP (ORDER BY e)"),
    "percentile_disc": _same("percentile_disc(0.5) WITHIN GROUP (ORDER BY d)",
                             "percentile_disc(0.25) WITHIN GROUP (ORDER BY d)",
                             "percentile_disc(0.5) WITHIN GROUP (ORDER BY d DESC)",
                             "percentile_disc(0.5) WITHIN GROUP (ORDER BY e)"),
    "regr_avgx": _same("regr_avgx(d, e)", "regr_avgx(e, d)", "regr_avgy(d, e)"),
    "regr_avgy": _same("regr_avgy(d, e)", "regr_avgy(e, d)", "regr_avgx(d, e)"),
    "regr_count": _same("regr_count(d, e)", "regr_count(d, d)"),
    "regr_intercept": _same("regr_intercept(d, e)", "regr_intercept(e, d)", "regr_slope(d, e)"),
    "regr_r2": _same("regr_r2(d, e)", "regr_r2(e, d)"),
    "regr_slope": _same("regr_slope(d, e)", "regr_slope(e, d)", "regr_intercept(d, e)"),
    "regr_sxx": _same("regr_sxx(d, e)", "regr_sxx(e, d)", "regr_syy(d, e)"),
    "regr_sxy": _same("regr_sxy(d, e)", "regr_sxy(e, d)"),
    "regr_syy": _same("regr_syy(d, e)", "regr_syy(e, d)", "regr_sxx(d, e)"),
    "std": _same("std(d)", "std(e)", "stddev_pop(d)"),
    "stddev": _same("stddev(d)", "stddev(e)", "stddev_pop(d)"),
    "stddev_pop": _same("stddev_pop(d)", "stddev_pop(e)", "stddev_samp(d)"),
    "stddev_samp": _same("stddev_samp(d)", "stddev_samp(e)", "stddev_pop(d)"),
    "variance": _same("variance(d)", "variance(e)", "var_pop(d)"),
    "var_pop": _same("var_pop(d)", "var_pop(e)", "var_samp(d)"),
    "var_samp": _same("var_samp(d)", "var_samp(e)", "var_pop(d)"),
    "theta_sketch_agg": _same("theta_sketch_agg(v)", "theta_sketch_agg(v, 10)", "theta_sketch_agg(w)"),
    "theta_union_agg": _same("theta_union_agg(unhex(s))", "theta_union_agg(unhex(s), 10)",
                             "theta_union_agg(unhex(t))", runs=False),
    "theta_intersection_agg": _same("theta_intersection_agg(unhex(s))", "theta_intersection_agg(unhex(t))",
                                    runs=False),
    "tuple_sketch_agg_double": _same("tuple_sketch_agg_double(v, d)", "tuple_sketch_agg_double(v, e)",
                                     "tuple_sketch_agg_double(v, d, 10)",
                                     "tuple_sketch_agg_double(v, d, 12, 'max')",
                                     "tuple_sketch_agg_double(w, d)"),
    "tuple_sketch_agg_integer": _same("tuple_sketch_agg_integer(v, i)", "tuple_sketch_agg_integer(v, i + 1)",
                                      "tuple_sketch_agg_integer(v, i, 10)",
                                      "tuple_sketch_agg_integer(v, i, 12, 'max')",
                                      "tuple_sketch_agg_integer(w, i)"),
    "tuple_union_agg_double": _same("tuple_union_agg_double(unhex(s))", "tuple_union_agg_double(unhex(t))",
                                    "tuple_union_agg_double(unhex(s), 10)",
                                    "tuple_union_agg_double(unhex(s), 12, 'max')", runs=False),
    "tuple_union_agg_integer": _same("tuple_union_agg_integer(unhex(s))", "tuple_union_agg_integer(unhex(t))",
                                     "tuple_union_agg_integer(unhex(s), 10)",
                                     "tuple_union_agg_integer(unhex(s), 12, 'max')", runs=False),
    "tuple_intersection_agg_double": _same("tuple_intersection_agg_double(unhex(s))",
                                           "tuple_intersection_agg_double(unhex(t))",
                                           "tuple_intersection_agg_double(unhex(s), 'max')", runs=False),
    "tuple_intersection_agg_integer": _same("tuple_intersection_agg_integer(unhex(s))",
                                            "tuple_intersection_agg_integer(unhex(t))",
                                            "tuple_intersection_agg_integer(unhex(s), 'max')", runs=False),
}
