"""The extension's rules skip plans that cannot hold a window function (WindowPruning), without
timing: by the decisions they take, on plans and in a JVM that never created a window function."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from pyspark.sql import functions as F

import sliding_window_agg as swa


def pruning(spark):
    return spark._jvm.org.apache.spark.sql.slidingwindow.expressions.WindowPruning


def analyzed(df):
    return df._jdf.queryExecution().analyzed()


def test_aggregation_rules_skip_plans_without_an_aggregate(spark):
    spark.range(3).groupBy(swa.sliding_window(F.timestamp_seconds("id"), "1 second")).count().collect()
    p = pruning(spark)
    assert p.mayHoldWindows()
    # No Aggregate anywhere: the resolution and normalization rules return the plan at once.
    assert not p.mayGroupByWindow(analyzed(spark.range(3).selectExpr("id + 1 AS x").where("x > 1")))
    assert not p.mayGroupByWindow(analyzed(
        spark.range(3).join(spark.range(5), "id").orderBy("id")))
    # An Aggregate, also only in a subquery: visited.
    assert p.mayGroupByWindow(analyzed(spark.range(3).groupBy("id").count()))
    assert p.mayGroupByWindow(analyzed(spark.sql(
        "SELECT id FROM range(3) WHERE id IN (SELECT max(id) FROM range(5))")))


@pytest.mark.slow
def test_every_rule_returns_at_once_until_a_window_function_exists(spark):
    """In its own JVM: queries of every shape without a window function leave the flag unset, so
    every rule of the extension returned without walking the plan; the first window function
    sets it, and windowed queries work as usual."""
    script = textwrap.dedent(
        """
        from pyspark.sql import SparkSession
        import sliding_window_agg as swa
        spark = (swa.configure(SparkSession.builder.master("local[1]"))
                 .config("spark.ui.enabled", "false").getOrCreate())
        p = spark._jvm.org.apache.spark.sql.slidingwindow.expressions.WindowPruning
        spark.range(10).createOrReplaceTempView("t")
        for q in ["SELECT id % 3 AS k, count(*) FROM t GROUP BY id % 3 HAVING count(*) > 1",
                  "SELECT * FROM t a JOIN t b USING (id) WHERE a.id IN (SELECT max(id) FROM t)",
                  "SELECT id, sum(id) OVER (ORDER BY id) FROM t",
                  "SELECT window(timestamp_seconds(id), '2 seconds'), count(*) FROM t "
                  "GROUP BY window(timestamp_seconds(id), '2 seconds')"]:
            spark.sql(q).collect()
        print("BEFORE", p.mayHoldWindows())
        n = spark.sql("SELECT count(*) AS n FROM t "
                      "GROUP BY sliding_window(timestamp_seconds(id), '2 seconds')").count()
        print("AFTER", p.mayHoldWindows(), n)
        spark.stop()
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "PYSPARK_PYTHON": sys.executable})
    lines = [line for line in out.stdout.splitlines() if line.startswith(("BEFORE", "AFTER"))]
    assert lines == ["BEFORE False", "AFTER True 19"], out.stdout + out.stderr[-3000:]
