"""A Spark Connect client (its own process: a Connect session switches pyspark.sql.functions to
Connect mode for the whole process) running window functions on the rows of the
contract's example (docs/contract.md).

Usage: python connect_child.py URL SIZE FUNCTION...
URL is sc://host:port (a running server), or local[n] for the in-process server that
SparkSession.builder.remote("local[n]") starts, configured with sliding_window_agg.configure().
For each FUNCTION (a function of the package, called as f(time, SIZE) in groupBy) prints
    RESULT <json>  {"function": name, "api": [[s, e, n, ids], ...], "sql": [...]}
and first `LOADED <is_loaded>`; then, for queries the extension rejects,
    ERROR <json>  {"query": name, "type": exception class, "condition": ..., "sqlState": ...,
                   "parameters": {...}, "message": str(e)}
"""
import json
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa
from spec_example import ROWS


def main() -> None:
    url, size, functions = sys.argv[1], sys.argv[2], sys.argv[3:]
    builder = SparkSession.builder.remote(url)
    if url.startswith("local"):
        builder = swa.configure(builder).config("spark.ui.enabled", "false")
    spark = builder.getOrCreate()
    print("LOADED", swa.is_loaded(spark), flush=True)
    df = spark.createDataFrame(ROWS, "id string, t long").withColumn("ts", F.timestamp_micros("t"))
    df.createOrReplaceTempView("events")
    for name in functions:
        grouped = df.groupBy(getattr(swa, name)("ts", size)).agg(
            F.count("*").alias("n"), F.concat_ws("", F.sort_array(F.collect_list("id"))).alias("ids"))
        window = grouped.columns[0]
        api = grouped.select(F.unix_micros(F.col(window).start).alias("s"),
                             F.unix_micros(F.col(window).end).alias("e"), "n", "ids").orderBy("s")
        sql = spark.sql(
            f"SELECT unix_micros(w.start) AS s, unix_micros(w.end) AS e, n, ids FROM ("
            f" SELECT {name}(ts, '{size}') AS w, count(*) AS n,"
            f"  concat_ws('', sort_array(collect_list(id))) AS ids"
            f"  FROM events GROUP BY {name}(ts, '{size}')) ORDER BY s")
        print("RESULT", json.dumps({"function": name, "api": [list(r) for r in api.collect()],
                                    "sql": [list(r) for r in sql.collect()]}), flush=True)
    print_trailing(spark, df, size)
    print_trailing_stream(spark, size)
    print_late_rows(spark, size)
    print_errors(spark, df)
    spark.stop()


def print_trailing(spark: SparkSession, df, size: str) -> None:
    """Trailing windows of `size` over the rows, from the DataFrame helper and from SQL:
    TRAILING <json> {"api": [[id, n, ids], ...], "sql": [...], "planned": bool}."""
    w = swa.trailing_window([], "ts", size)
    api = df.select("id", F.count("*").over(w).alias("n"),
                    F.concat_ws("", F.sort_array(F.collect_list("id").over(w))).alias("ids")).orderBy("id")
    sql = spark.sql(
        "SELECT id, count(*) OVER w AS n, concat_ws('', sort_array(collect_list(id) OVER w)) AS ids "
        f"FROM events WINDOW w AS (ORDER BY ts RANGE BETWEEN INTERVAL '{size}' PRECEDING AND CURRENT ROW) "
        "ORDER BY id")
    planned = all("TrailingWindow" in q._explain_string() for q in (api, sql))
    print("TRAILING", json.dumps({"api": [list(r) for r in api.collect()],
                                  "sql": [list(r) for r in sql.collect()], "planned": planned}), flush=True)


def print_trailing_stream(spark: SparkSession, size: str) -> None:
    """The same trailing windows on a stream of the rows (a file, then a row "Z" an hour later whose
    watermark emits them), run by the server into a memory sink:
    TRAILING_STREAM <json> {"rows": [[id, n, ids], ...]}."""
    import os
    import tempfile

    folder = tempfile.mkdtemp(prefix="swa-connect-stream-")
    last = max(t for _, t in ROWS)
    with open(os.path.join(folder, "rows.json"), "w") as f:
        for i, t in list(ROWS) + [("Z", last + 3_600_000_000)]:
            f.write(json.dumps({"id": i, "t": t}) + "\n")
    stream = (spark.readStream.schema("id string, t long").json(folder)
              .withColumn("ts", F.timestamp_micros("t")).withWatermark("ts", "0 seconds"))
    w = swa.trailing_window([], "ts", size)
    query = (stream.select("id", F.count("*").over(w).alias("n"),
                           F.concat_ws("", F.sort_array(F.collect_list("id").over(w))).alias("ids"))
             .writeStream.format("memory").queryName("trailing_stream").outputMode("append")
             .option("checkpointLocation", os.path.join(folder, "checkpoint"))
             .trigger(availableNow=True).start())
    query.awaitTermination(120)
    rows = spark.table("trailing_stream").orderBy("id").collect()
    print("TRAILING_STREAM", json.dumps({"rows": [list(r) for r in rows]}), flush=True)


def print_late_rows(spark: SparkSession, size: str) -> None:
    """The trailing windows stream with a late-rows table named by SQL's SET: a first file, a row
    an hour later, another (the watermark for late rows is the micro-batch before's), then a row
    from before the watermark, each file a micro-batch; the late row as the table holds it:
    LATE_ROWS <json> {"rows": [[id, late_operator, late_reason], ...]}."""
    import os
    import tempfile

    folder = tempfile.mkdtemp(prefix="swa-connect-late-")
    last = max(t for _, t in ROWS)
    later = last + 3_600_000_000
    for n, rows in enumerate([list(ROWS), [("Z", later)], [("Y", later)], [("L", last)]]):
        path = os.path.join(folder, f"{n}.json")
        with open(path, "w") as f:
            f.writelines(json.dumps({"id": i, "t": t}) + "\n" for i, t in rows)
        os.utime(path, (1_600_000_000 + n, 1_600_000_000 + n))
    # A database of its own in the run's folder: the sessions of every run share the warehouse.
    database = "connect_late_" + os.path.basename(folder).replace("-", "_")
    spark.sql(f"CREATE DATABASE {database} LOCATION '{folder}/database'")
    spark.sql(f"SET spark.sql.slidingWindow.lateRows.table = {database}.late_rows")
    stream = (spark.readStream.schema("id string, t long").option("maxFilesPerTrigger", 1).json(folder)
              .withColumn("ts", F.timestamp_micros("t")).withWatermark("ts", "0 seconds"))
    w = swa.trailing_window([], "ts", size)
    query = (stream.select("id", F.count("*").over(w).alias("n"))
             .writeStream.format("memory").queryName("late_stream").outputMode("append")
             .option("checkpointLocation", os.path.join(folder, "checkpoint"))
             .trigger(availableNow=True).start())
    query.awaitTermination(120)
    spark.sql("RESET spark.sql.slidingWindow.lateRows.table")
    spark.sql(f"REFRESH TABLE {database}.late_rows")
    rows = spark.sql(f"SELECT id, late_operator, late_reason FROM {database}.late_rows").collect()
    spark.sql(f"DROP DATABASE {database} CASCADE")
    print("LATE_ROWS", json.dumps({"rows": [list(r) for r in rows]}), flush=True)


def print_errors(spark: SparkSession, df) -> None:
    """The errors of a few rejected queries, as the Connect client raises them."""
    from pyspark.errors import AnalysisException

    queries = {
        "invalid_size_sql": lambda: spark.sql(
            "SELECT count(*) FROM events GROUP BY sliding_window(ts, '0 seconds')").collect(),
        "wrong_num_args_sql": lambda: spark.sql(
            "SELECT count(*) FROM events GROUP BY sliding_window(ts)").collect(),
        "distinct_api": lambda: df.groupBy(swa.sliding_window("ts", "10 seconds"))
        .agg(F.count_distinct("id")).collect(),
    }
    for name, query in queries.items():
        try:
            query()
            print("ERROR", json.dumps({"query": name, "type": None}), flush=True)
        except AnalysisException as e:
            print("ERROR", json.dumps({
                "query": name, "type": type(e).__name__, "condition": e.getCondition(),
                "sqlState": e.getSqlState(), "parameters": e.getMessageParameters(),
                "message": str(e)}), flush=True)


if __name__ == "__main__":
    main()
