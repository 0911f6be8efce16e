"""The operator's generated projections are lent to a task and reused by the next one
(ProjectionPool): a second run of a query generates no new ones, and its results are those of a
run with fresh projections."""
from __future__ import annotations

import pytest
from pyspark.sql import functions as F

import sliding_window_agg as swa
from spec_example import EVENT_WINDOWS as SPEC_TABLE
from spec_example import EVENTS as SPEC_ROWS
from windows_util import events_df


def pool(spark):
    return spark._jvm.org.apache.spark.sql.slidingwindow.codegen.ProjectionPool


def spec_query(spark):
    # One partition: one task at a time holds the operator's projections, so that the number of
    # free ones after a run does not depend on how the tasks overlapped.
    return (events_df(spark, SPEC_ROWS).repartition(1, "k")
            .groupBy("k", swa.sliding_window("ts", "10 microseconds"))
            .agg(F.count("*").alias("n"), F.sum("v").alias("total"), F.collect_list("v").alias("vs"))
            .select(F.unix_micros("sliding_window.start").alias("s"),
                    F.unix_micros("sliding_window.end").alias("e"), "n", "total", "vs")
            .orderBy("s"))


def windows(query):
    return [((r.s, r.e), r.n, r.total, list(r.vs)) for r in query.collect()]


EXPECTED = [(w, len(vs), sum(vs), vs) for w, vs in SPEC_TABLE]


@pytest.mark.every_spark
def test_a_second_run_reuses_the_first_runs_projections(spark):
    # The same query each time, as a streaming query's micro-batches are (a new DataFrame has new
    # attribute ids in its expressions: other projections).
    query = spec_query(spark)
    assert windows(query) == EXPECTED
    held = pool(spark).freeCount()
    assert held > 0, "the first run gave its projections back to the pool"
    for _ in range(3):
        assert windows(query) == EXPECTED
        assert pool(spark).freeCount() == held, "later runs took the pooled projections, made none"


@pytest.mark.parametrize("mode", ["NO_CODEGEN", "CODEGEN_ONLY"])
def test_the_factory_mode_keeps_its_own_projections(spark, mode):
    query = spec_query(spark)
    assert windows(query) == EXPECTED
    held = pool(spark).freeCount()
    spark.conf.set("spark.sql.codegen.factoryMode", mode)
    try:
        assert windows(query) == EXPECTED
    finally:
        spark.conf.unset("spark.sql.codegen.factoryMode")
    assert pool(spark).freeCount() > held, "projections of another factory mode are others"
    assert windows(query) == EXPECTED
