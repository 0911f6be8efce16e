"""One group holding millions of rows in one sliding window, on default local settings (no
driver memory set: 1 GiB of heap): the window's partials spill to local disk instead of failing
(docs/performance.md).

    python -m benchmarks.memory [--rows 20000000]

Runs `GROUP BY k, sliding_window(ts, '1 day')` with count, sum, max and max_by over `--rows`
rows of a single key, one row per microsecond (so one window holds every row), and reports the
time, the number of windows, the largest window and the operator's spill size.
"""
from __future__ import annotations

import argparse
import time
from typing import List, Optional

from benchmarks.common import machine_markdown, markdown_table, publish, session


def spill_size(df) -> int:
    """The `spill size` SQL metric of the SlidingWindowAggregate operator of an executed query."""
    nodes = [df._jdf.queryExecution().executedPlan()]
    total = 0
    while nodes:
        node = nodes.pop()
        if node.nodeName() == "SlidingWindowAggregate":
            total += node.metrics().apply("spillSize").value()
        children = node.children()
        nodes.extend(children.apply(i) for i in range(children.size()))
    return total


def main(argv: Optional[List[str]] = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=20_000_000)
    p.add_argument("--report", help="write the results as Markdown to this file")
    args = p.parse_args(argv)

    # Default local settings: local[*], no spark.driver.memory. Adaptive execution off only so
    # that the executed plan is the final one, to read its metric.
    spark = session("sliding-window-agg memory benchmark", master="local[*]", driver_memory=None,
                    conf={"spark.sql.adaptive.enabled": "false"})
    heap = spark._jvm.java.lang.Runtime.getRuntime().maxMemory()
    spark.range(args.rows).selectExpr("0 AS k", "timestamp_micros(1704067200000000 + id) AS ts",
                                      "id % 1000 AS v").createOrReplaceTempView("one_group")
    query = spark.sql("""
        SELECT count(*) AS windows, max(n) AS largest, sum(n) AS total FROM (
          SELECT k, sliding_window(ts, '1 day') AS w, count(*) AS n, sum(v) AS s, max(v) AS m,
                 max_by(v, ts) AS b
          FROM one_group GROUP BY k, sliding_window(ts, '1 day'))""")
    start = time.perf_counter()
    row = query.collect()[0]
    seconds = time.perf_counter() - start
    spilled = spill_size(query)
    result = {"rows": args.rows, "heap": heap, "seconds": seconds, "windows": row.windows,
              "largest": row.largest, "spilled": spilled}
    table = markdown_table(
        ["rows in the group", "JVM heap", "time s", "windows", "rows in the largest window", "spill size"],
        [[f"{args.rows:,}", f"{heap / 2**30:.1f} GiB", f"{seconds:.1f}", f"{row.windows:,}",
          f"{row.largest:,}", f"{spilled / 2**20:,.0f} MiB"]])
    report = f"{table}\n\n{machine_markdown()}"
    publish(report, args.report)
    assert row.largest == args.rows, "one window holds every row"
    spark.stop()
    return result


if __name__ == "__main__":
    main()
