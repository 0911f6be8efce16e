"""A restarted streaming query is compared with its checkpoint by what each aggregate computes
(docs/streaming.md, "Restarting a changed query"), not by how its SQL prints: surveyed over every
aggregate function of the running Spark's function registry (aggregate_calls.py).

- Unchanged, a query restarts: in the same JVM after other queries planned the same functions
  (Spark 4 numbers the names it generates for `count_if` per JVM), in another JVM, and on a later
  Spark (the fixtures of tests/fixtures/aggregates/, written on each earlier Spark), with every
  window equal to the reference of aggregates_harness.py.
- Changed, it is refused before any micro-batch runs: every optional argument and flag, FILTER,
  the input column, the function, and flags that the SQL text leaves out (`first(v, true)`).
- A record written before aggregates were recorded by what they compute (its SQL text of the
  optimized aggregates, with a generated name) still restarts, and is upgraded.
"""
from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import sys

import pytest

import aggregates_harness as h
from aggregate_calls import CALLS, SCHEMA
from checkout import SUPPORT
from checkpoint_fixtures import restore
from error_conditions import assert_condition, run_time_cause
from streaming_harness import HDFS, run_query, session_conf, spark_version, state_store
from windows_util import find_node

pytestmark = pytest.mark.slow  # processes, servers or long runs: `make test` only

CHILD = os.path.join(SUPPORT, "restart_aggregates_child.py")


def windowed_aggregate(spark, select: str):
    """The optimized WindowedAggregate node of `SELECT k, <select>` over the calls' columns."""
    df = spark.sql(f"SELECT k, {select} FROM calls GROUP BY k, sliding_window(ts, '1 second')")
    return find_node(df._jdf.queryExecution().optimizedPlan(), "WindowedAggregate")


def identity(spark, call: str, other: str = "count_if(w > 0)") -> str:
    """What the planned aggregate `call` computes, as its column of the windowed aggregation
    records it; `other`, planned first in the same query, moves the names Spark generates."""
    aggregates = windowed_aggregate(spark, f"{other}, {call}").aggregates()
    return aggregates.apply(aggregates.size() - 1).identity().computes()


@pytest.fixture(scope="module")
def calls_view(spark):
    spark.createDataFrame([], SCHEMA).createOrReplaceTempView("calls")
    yield
    spark.catalog.dropTempView("calls")


def resolves(spark, call: str) -> bool:
    """Whether `call` exists on this Spark (a flag or argument added by a later release)."""
    try:
        spark.sql(f"SELECT {call} FROM calls").schema
        return True
    except Exception as e:  # noqa: BLE001 - any analysis error
        assert "UNRESOLVED_ROUTINE" in str(e) or "WRONG_NUM_ARGS" in str(e), (call, str(e)[:300])
        return False


@pytest.mark.every_spark
def test_every_aggregate_of_the_registry_is_surveyed(spark):
    missing = [n for n in h.registry_aggregates(spark) if n not in CALLS]
    assert not missing, f"aggregate functions of Spark {spark.version} with no call in aggregate_calls.py"


@pytest.mark.every_spark
def test_what_an_aggregate_computes_is_stable_and_every_change_counts(spark, calls_view):
    """Planned twice with different generated names, every call computes the same; each change
    of a call computes something else, and says what in its text."""
    surveyed, names = 0, h.registry_aggregates(spark)
    for name in names:
        call = CALLS[name]
        base = identity(spark, call.base)
        assert identity(spark, call.base, other="count_if(v > 1), count_if(w > 2)") == base, name
        assert "_common_expr" not in base and "#" not in base.replace("#0", ""), base
        for change in call.changes:
            if not resolves(spark, change):
                continue
            changed = identity(spark, change)
            assert changed != base, f"{change} is taken for {call.base}: {base}"
            surveyed += 1
    assert surveyed >= len(names)


def test_an_aggregate_is_named_by_its_function_flags_and_result_only(spark, calls_view):
    """What does not change the result does not count: aliases of a function, the name of the
    output column, a qualifier; the ANSI mode of the session (error or null on bad input)."""
    assert identity(spark, "std(d)") == identity(spark, "stddev_samp(d) AS x")
    assert identity(spark, "sum(calls.v)") == identity(spark, "sum(v)")
    assert "ignoreNulls=true" in identity(spark, "first(v, true)")
    assert "ignoreNulls=false" in identity(spark, "first(v)")
    ansi = spark.conf.get("spark.sql.ansi.enabled")
    try:
        spark.conf.set("spark.sql.ansi.enabled", "false")
        legacy = identity(spark, "sum(CAST(s AS INT))")
        spark.conf.set("spark.sql.ansi.enabled", "true")
        assert identity(spark, "sum(CAST(s AS INT))") == legacy
        assert identity(spark, "try_sum(v)") != identity(spark, "sum(v)")
    finally:
        spark.conf.set("spark.sql.ansi.enabled", ansi)


def first_run(spark, tmp_path, calls):
    files = h.generate()
    half = len(files) // 2
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "checkpoint")
    h.write_files(source, files[:half])
    with state_store(spark, HDFS):
        first = run_query(spark, source, checkpoint, h.query(calls), "append", read=h.read)
    return files, half, source, checkpoint, first


def record_of(checkpoint: str) -> dict:
    [path] = glob.glob(os.path.join(checkpoint, "state", "*", "_sliding_window_agg", "operator.json"))
    with open(path) as f:
        return json.load(f)


def test_every_aggregate_restarts_in_the_same_jvm_and_in_another(spark, tmp_path):
    """The query of every aggregate that runs: stopped half-way, restarted here after the
    reference planned the same functions, then again in a new JVM that planned them first; the
    windows of the three runs are the reference's, each once."""
    calls = h.running_calls(spark)
    files, half, source, checkpoint, first = first_run(spark, tmp_path, calls)
    want = h.reference(spark, files, calls)  # plans count_if and the rest again
    h.write_files(source, files[half:-1], first=half)
    with state_store(spark, HDFS):
        second = run_query(spark, source, checkpoint, h.query(calls), "append", read=h.read)
    assert first.rows and second.rows
    h.write_files(source, files[-1:], first=len(files) - 1)
    child = subprocess.run([sys.executable, CHILD, source, checkpoint, json.dumps(calls)],
                           capture_output=True, text=True, timeout=600,
                           env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert child.returncode == 0, child.stderr[-3000:]
    third = [(0, h.row_of(r)) for r in json.loads(child.stdout.strip().splitlines()[-1])]
    assert third, "the last run closed the windows still open"
    got = h.emitted(first.rows + second.rows + third, calls)
    assert not h.differences(got, want, calls), "\n".join(h.differences(got, want, calls)[:20])


# A change of each kind, run as a restart: the message names what changed, by its SQL text, or
# by what it computes where the text is the same (first(v, true) prints as first(v)).
REFUSED = {
    "first(v)": ("first(v, true)", "ignoreNulls=true"),
    "any_value(d)": ("any_value(d, true)", "ignoreNulls=true"),
    "last(v)": ("last(w)", "last(w)"),
    "count_if(v > 0)": ("count_if(v > 1)", "count_if((v > CAST(1 AS BIGINT)))"),
    "sum(w)": ("sum(w) FILTER (WHERE b)", "FILTER (WHERE b)"),
    "try_sum(v)": ("sum(v)", "sum(v)"),
    "approx_count_distinct(v)": ("approx_count_distinct(v, 0.1)", "relativeSD=0.1"),
    "count_min_sketch(v, 0.5D, 0.5D, 1)": ("count_min_sketch(v, 0.5D, 0.5D, 2)", "count_min_sketch(v, 0.5D, 0.5D, 2)"),
    "percentile_approx(d, 0.5, 1000)": ("percentile_approx(d, 0.5, 100)", "100)"),
    "hll_sketch_agg(v, 12)": ("hll_sketch_agg(v, 10)", "hll_sketch_agg(v, 10)"),
}


def test_a_changed_aggregate_is_refused_before_any_micro_batch(spark, tmp_path):
    names = h.registry_aggregates(spark)
    calls = [c for c in REFUSED if c.split("(")[0] in names]
    files, half, source, checkpoint, _ = first_run(spark, tmp_path, calls)
    h.write_files(source, files[half:], first=half)
    commits = sorted(os.listdir(os.path.join(checkpoint, "commits")))
    for i, call in enumerate(calls):
        change, named = REFUSED[call]
        changed = calls[:i] + [change] + calls[i + 1:]
        with state_store(spark, HDFS), pytest.raises(Exception) as e:
            run_query(spark, source, checkpoint, h.query(changed), "append", read=h.read)
        message = str(e.value)
        assert_condition(run_time_cause(e.value), "WINDOW_STATE_INCOMPATIBLE_RESTART")
        assert "changed the aggregate functions of its sliding_window aggregation" in message, message[:3000]
        assert " to [#" in message, message[:1500]
        after = message[message.index(" to [#"):]
        assert f"[#{i + 1} " in after and named in after, (change, message[:2000])
        assert sorted(os.listdir(os.path.join(checkpoint, "commits"))) == commits, "nothing ran"


def test_a_record_of_sql_text_restarts_and_is_upgraded(spark, tmp_path, calls_view):
    """A record as release 0.1.0 and the code before this one wrote it: the SQL text of the
    optimized aggregates, with the name Spark 4 generated for count_if in that JVM."""
    calls = ["count_if(v > 0)", "first(v)", "sum(v)"]
    files, half, source, checkpoint, first = first_run(spark, tmp_path, calls)
    [path] = glob.glob(os.path.join(checkpoint, "state", "*", "_sliding_window_agg", "operator.json"))
    record = record_of(checkpoint)
    # The old text: the optimized aggregate's SQL, with a name generated in another JVM.
    plan = windowed_aggregate(spark, "count_if(v > 0)")
    old_text = [re.sub("_common_expr_[0-9]+", "_common_expr_41", plan.aggregateExpressions().apply(0).sql())]
    assert old_text[0].startswith("count(") and old_text[0] != record["aggregates"][0], old_text
    old = {k: v for k, v in record.items() if k not in ("aggregateIdentities", "bufferTypes")}
    old["aggregates"] = old_text + ["first(v)", "sum(v)"]
    with open(path, "w") as f:
        json.dump(old, f)
    os.remove(os.path.join(os.path.dirname(path), ".operator.json.crc"))
    h.write_files(source, files[half:], first=half)
    with state_store(spark, HDFS):
        second = run_query(spark, source, checkpoint, h.query(calls), "append", read=h.read)
    got = h.emitted(first.rows + second.rows, calls)
    want = h.reference(spark, files, calls)
    assert not h.differences(got, want, calls), h.differences(got, want, calls)[:10]
    assert record_of(checkpoint) == record, "the record now says what the aggregates compute"


def test_a_record_of_sql_text_still_refuses_a_change(spark, tmp_path):
    calls = ["sum(v)"]
    files, half, source, checkpoint, _ = first_run(spark, tmp_path, calls)
    [path] = glob.glob(os.path.join(checkpoint, "state", "*", "_sliding_window_agg", "operator.json"))
    old = {k: v for k, v in record_of(checkpoint).items() if k not in ("aggregateIdentities", "bufferTypes")}
    with open(path, "w") as f:
        json.dump(old, f)
    os.remove(os.path.join(os.path.dirname(path), ".operator.json.crc"))
    h.write_files(source, files[half:], first=half)
    with state_store(spark, HDFS), pytest.raises(Exception) as e:
        run_query(spark, source, checkpoint, h.query(["max(v)"]), "append", read=h.read)
    assert "from [sum(v)] to [max(v)]" in str(e.value)


def aggregate_fixtures():
    return sorted(glob.glob(os.path.join(h.FIXTURES, "spark-*")))


def test_a_fixture_of_every_earlier_spark():
    assert [os.path.basename(f) for f in aggregate_fixtures()] == \
        ["spark-3.5", "spark-4.0", "spark-4.1", "spark-4.2"]


def fixtures_to_restart(version: tuple) -> list:
    """The newest Spark restarts the fixture of every earlier one, each other Spark the fixture
    of the Spark just before it (a checkpoint moves one minor version up)."""
    earlier = [f for f in aggregate_fixtures() if written_on(f) < version]
    newest = version > written_on(aggregate_fixtures()[-1])
    return earlier if newest else earlier[-1:]


def written_on(folder: str) -> tuple:
    return tuple(int(p) for p in os.path.basename(folder)[len("spark-"):].split("."))


@pytest.mark.every_spark
def test_checkpoints_of_earlier_sparks_restart_with_every_aggregate(spark, tmp_path):
    """A checkpoint of the query of every aggregate, written on an earlier Spark, restarts here
    with windows equal to the reference."""
    folders = fixtures_to_restart(spark_version(spark))
    if not folders:
        pytest.skip(f"no fixture was written on a Spark before {spark.version}")
    for folder in folders:
        restart_fixture(spark, tmp_path / os.path.basename(folder), folder)


def ansi_mode_where_corr_runs(spark) -> str:
    """Spark 4.0 and 4.1 fail corr(x, y) of rows where y does not vary with DIVIDE_BY_ZERO
    under ANSI, plain Spark's aggregation too: there the fixtures run with ANSI off."""
    ansi = spark.conf.get("spark.sql.ansi.enabled")
    try:
        spark.sql("SELECT corr(x, y) FROM VALUES (1.0D, 2.0D), (2.0D, 2.0D) AS t(x, y)").collect()
        return ansi
    except Exception as e:  # noqa: BLE001
        assert "DIVIDE_BY_ZERO" in str(e), str(e)[:500]
        return "false"


def restart_fixture(spark, work, folder: str) -> None:
    with open(os.path.join(folder, "fixture.json")) as f:
        meta = json.load(f)
    calls = meta["calls"]
    source, checkpoint = restore(folder, str(work))
    files = []
    for name in sorted(os.listdir(source)):
        with open(os.path.join(source, name)) as f:
            files.append([json.loads(line) for line in f])
    with session_conf(spark, "spark.sql.ansi.enabled", ansi_mode_where_corr_runs(spark)):
        want = h.reference(spark, files, calls)
        with state_store(spark, HDFS):
            second = run_query(spark, source, checkpoint, h.query(calls), "append", read=h.read)
    first = [(b, h.row_of(r)) for b, r in meta["first_run"]]
    assert first and second.rows
    got = h.emitted(first + second.rows, calls)
    assert not h.differences(got, want, calls), \
        (folder, "\n".join(h.differences(got, want, calls)[:20]))
