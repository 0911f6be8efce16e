"""Late rows as data (docs/streaming.md, "Late rows as data"): with
`spark.sql.slidingWindow.lateRows.table`, every row a streaming sliding_window aggregation (append
and update mode) or streaming trailing windows drop as late is in the query's late-rows table,
exactly once, with its micro-batch, the watermark it missed, the operator and the reason.

Checked against the streaming harnesses' references (tests/support/streaming_harness.py,
trailing_harness.py), which simulate Spark's watermarks from the definition: the rows in the
table are exactly the rows the reference finds late, and the windows emitted are those of the
reference over the other rows; so the two account for every input row once. Errors are checked
to stop the query before its first micro-batch commits (no row lost)."""
from __future__ import annotations

import json
import os
import uuid
from typing import List

import pyspark
import pytest
from pyspark.sql import functions as F

import sliding_window_agg as swa

import streaming_harness as sh
from buildtools import maven_classpath
import trailing_harness as th
from error_conditions import query_failure
from quiet_stream import explain_text
from streaming_harness import (CASE, DELAY_TEXT, FLUSH_KEY, ID, KEY, MS, SEC, TIME, VALUE, batch_plan,
                               committed_batches, generate_stream, operator_metrics, read_stream, restart_point,
                               run_query, session_conf, sliding_query, write_files)

LATE_CONF = "spark.sql.slidingWindow.lateRows.table"
WATERMARKED = ["case", "k", "t", "v", "id", "ts"]  # the harness's stream, as its withWatermark returns it
# The running Spark's minor version, whose Delta Lake build the Delta test uses (none for 4.3).
DELTA_MINOR = ".".join(pyspark.__version__.split(".")[:2])
METADATA = ["late_batch_id", "late_watermark", "late_operator", "late_operator_id", "late_reason"]


@pytest.fixture
def database(spark, tmp_path):
    """A database of its own in the test's folder (the pytest workers share a warehouse)."""
    name = f"late_{uuid.uuid4().hex[:8]}"
    spark.sql(f"CREATE DATABASE {name} LOCATION '{tmp_path / 'db'}'")
    yield name
    spark.sql(f"DROP DATABASE {name} CASCADE")


def micros(ts) -> int:
    return int(round(ts.timestamp() * SEC))


def table_rows(spark, table: str) -> List:
    spark.sql(f"REFRESH TABLE {table}")
    return spark.read.table(table).collect()


def check_late_rows(stream, runs, rows, operator: str, name: str) -> None:
    """`rows` (the table's) are exactly the rows the reference finds late, once each, each with
    its micro-batch, the watermark of the micro-batch before (Spark's watermark for late rows),
    the operator and the reason; the operator's metrics count them."""
    plan = batch_plan(stream, runs)
    late = stream.late(plan)
    ids = [r.id for r in rows]
    assert len(ids) == len(set(ids)), f"late rows written twice: {sorted(i for i in ids if ids.count(i) > 1)}"
    assert set(ids) == set(late), (f"missing late rows {sorted(late - set(ids))[:5]}, "
                                   f"unexpected ones {sorted(set(ids) - late)[:5]}")
    events = {e[ID]: e for f in stream.files for e in f}
    batch_of = {e[ID]: b for b, batch in enumerate(plan)
                for f in stream.files[batch.files_before:batch.files_through] for e in f}
    for r in rows:
        e = events[r.id]
        assert (r.case, r.k, micros(r.ts), r.v) == (e[CASE], e[KEY], e[TIME], e[VALUE]), r
        b = batch_of[r.id]
        assert (r.late_batch_id, micros(r.late_watermark)) == (b, plan[b - 1].watermark * MS), r
        assert (r.late_operator, r.late_operator_id, r.late_reason) == (operator, r.late_operator_id, "watermark"), r
    metrics = operator_metrics(runs, name)
    assert sum(op["numRowsDroppedByWatermark"] for op in metrics) == len(late)
    assert sum(op["customMetrics"]["numLateRowsWritten"] for op in metrics) == len(late)


# Each mode and operator once, the two state stores between them: the late rows are found before
# the state is read, so a store changes nothing of them (`make test` runs the first parameters of
# each on every other Spark: both stores there too).
@pytest.mark.every_spark
@pytest.mark.parametrize("mode,store", [("append", sh.ROCKSDB), ("update", sh.HDFS)], ids=["append-rocksdb", "update-default"])
def test_sliding_window_late_rows_are_the_references(spark, tmp_path, database, mode, store):
    """Random out-of-order streams: the windows emitted are the reference's over the rows kept,
    the table holds the others, the late ones."""
    stream = generate_stream(31 if mode == "append" else 32, 3 * SEC, cases=6)
    write_files(str(tmp_path / "in"), stream.files)
    table = f"{database}.late_rows"
    with sh.state_store(spark, store), session_conf(spark, LATE_CONF, table):
        run = run_query(spark, str(tmp_path / "in"), str(tmp_path / "chk"), sliding_query("3 seconds"), mode)
    sh.CHECKS[mode](stream, [run])
    rows = table_rows(spark, table)
    assert len(rows) > 3, "the stream has late rows"
    assert spark.read.table(table).columns == WATERMARKED + METADATA
    check_late_rows(stream, [run], rows, "sliding_window", sh.OPERATOR)
    assert {r.late_operator_id for r in rows} == {1000}


@pytest.mark.every_spark
@pytest.mark.parametrize("store", [sh.HDFS, sh.ROCKSDB], ids=["default", "rocksdb"])
def test_trailing_windows_emitted_and_late_rows_account_for_every_row(spark, tmp_path, database, store):
    """Every input row but the flush is either emitted once, with the reference's frames, or in
    the table once."""
    stream = th.generate(41)
    write_files(str(tmp_path / "in"), stream.files)
    table = f"{database}.late_rows"
    with sh.state_store(spark, store), session_conf(spark, LATE_CONF, table):
        run = run_query(spark, str(tmp_path / "in"), str(tmp_path / "chk"), th.trailing_query, "append")
    th.check(stream, [run])
    rows = table_rows(spark, table)
    check_late_rows(stream, [run], rows, "trailing_window", th.OPERATOR)
    # Every column of the stream its withWatermark returned; not the ORDER BY column Spark computes (_w0).
    assert spark.read.table(table).columns == ["case", "k", "t", "v", "id", "ts"] + METADATA, (
        spark.read.table(table).columns)
    emitted = [r.id for _, r in run.rows]
    kept = [e[ID] for f in stream.files for e in f if e[KEY] != FLUSH_KEY]
    assert sorted(emitted + [r.id for r in rows]) == sorted(kept)


def run_in_two(spark, tmp_path, seed: int, table: str, between=lambda: None):
    """A random stream of the sliding harness run in two runs of one query, with `table` for its
    late rows; `between` runs between them. Returns the stream, the runs and the checkpoint."""
    stream = generate_stream(seed, 3 * SEC, cases=6)
    h = restart_point(stream)
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "chk")
    runs = []
    with session_conf(spark, LATE_CONF, table):
        write_files(source, stream.files[:h])
        runs.append(run_query(spark, source, checkpoint, sliding_query("3 seconds"), "append"))
        between()
        write_files(source, stream.files[h:], first=h)
        runs.append(run_query(spark, source, checkpoint, sliding_query("3 seconds"), "append"))
    return stream, runs, checkpoint


def test_restart_goes_on_with_the_table_and_a_stream_reads_it(spark, tmp_path, database):
    """A query restarted from its checkpoint writes to the table it started with: every late row
    once over both runs; its plan names the table; a second query reads the table as a stream."""
    table = f"{database}.late_rows"
    stream, runs, checkpoint = run_in_two(spark, tmp_path, 33, table)
    sh.check_append(stream, runs)
    rows = table_rows(spark, table)
    check_late_rows(stream, runs, rows, "sliding_window", sh.OPERATOR)
    record = json.loads(open(os.path.join(checkpoint, "_sliding_window_agg", "late-rows")).read())
    assert (record["table"], record["firstBatch"]) == (f"spark_catalog.{table}", 0)

    # A second query reprocesses them as a stream.
    got = []
    query = (spark.readStream.table(table).writeStream
             .foreachBatch(lambda df, _: got.extend(df.collect()))
             .option("checkpointLocation", str(tmp_path / "reader")).trigger(availableNow=True).start())
    query.awaitTermination(120)
    assert sorted(r.id for r in got) == sorted(r.id for r in rows)


def test_the_plan_and_progress_name_the_table(spark, tmp_path, database):
    stream = generate_stream(34, 3 * SEC, cases=2)
    write_files(str(tmp_path / "in"), stream.files)
    table = f"{database}.late_rows"
    with session_conf(spark, LATE_CONF, table):
        query = (sliding_query("3 seconds")(read_stream(spark, str(tmp_path / "in"))).writeStream
                 .format("memory").queryName(f"q_{database}").option("checkpointLocation", str(tmp_path / "chk"))
                 .trigger(availableNow=True).start())
        query.awaitTermination(120)
    plan = explain_text(query)
    assert f"lateRows=spark_catalog.{table} (file:" in plan, plan
    progress = sh.progress_dict(query.lastProgress)
    assert "numLateRowsWritten" in progress["stateOperators"][0]["customMetrics"]


def run_until_error(spark, tmp_path, build=sliding_query("3 seconds"), name="in") -> str:
    """Starts a query over one file with the session's settings; returns the message it stopped with."""
    source, checkpoint = str(tmp_path / name), str(tmp_path / f"chk-{name}")
    if not os.path.exists(source):
        write_files(source, generate_stream(35, 3 * SEC, cases=1).files[:1])
    failure, at_start = query_failure(build(read_stream(spark, source)).writeStream.format("memory")
                                      .queryName(f"e_{uuid.uuid4().hex[:8]}").option("checkpointLocation", checkpoint)
                                      .trigger(availableNow=True))
    assert not at_start, failure
    assert committed_batches(checkpoint) == set(), "a micro-batch committed before the error"
    return str(failure)


def whole_row_query(function: str):
    """A query that reads less of the stream than its late rows hold: `v` redefined after the
    watermark, a column added after it, and only a count (Spark prunes `case`, `t` and `id`)."""
    def build(stream):
        s = stream.withWatermark("ts", DELAY_TEXT).withColumn("v", F.col("v") * 1000).withColumn("extra", F.lit(1))
        if function == "sliding":
            return s.groupBy("k", swa.sliding_window("ts", "3 seconds")).agg(F.count("*").alias("n"), F.max("extra"))
        return s.select("k", "ts", F.count("*").over(swa.trailing_window("k", "ts", "3 seconds")).alias("n"))
    return build


@pytest.mark.every_spark
@pytest.mark.parametrize("function,mode", [("sliding", "append"), ("sliding", "update"), ("trailing", "append")])
def test_the_whole_row_is_written_and_the_shuffle_carries_only_the_operators_columns(
        spark, tmp_path, database, function, mode):
    """A late row is in the table as `withWatermark` returned it: every column, with its values
    then (the `v` of the stream, not the query's `v * 1000`), not a column added after it; below
    the operator's shuffle a split takes the late rows out, and the shuffle carries only what the
    operator reads."""
    if function == "sliding":
        stream, name = generate_stream(39, 3 * SEC, cases=2), sh.OPERATOR
    else:
        stream, name = th.generate(39, cases=2), th.OPERATOR
    write_files(str(tmp_path / "in"), stream.files)
    table = f"{database}.late_rows"
    with session_conf(spark, LATE_CONF, table):
        query = (whole_row_query(function)(read_stream(spark, str(tmp_path / "in"))).writeStream.outputMode(mode)
                 .format("memory").queryName(f"w_{database}").option("checkpointLocation", str(tmp_path / "chk"))
                 .trigger(availableNow=True).start())
        assert query.awaitTermination(sh.QUERY_TIMEOUT)
    runs = [sh.Run([], [sh.progress_dict(p) for p in query.recentProgress])]
    assert spark.read.table(table).columns == WATERMARKED + METADATA
    rows = table_rows(spark, table)
    check_late_rows(stream, runs, rows, f"{function}_window", name)
    plan = explain_text(query)
    lines = plan.splitlines()
    split = next(i for i, line in enumerate(lines) if "LateRowsSplit(" in line)
    assert any("Exchange" in line for line in lines[:split]), plan
    assert "written=[case, k, t, v, id, ts]" in lines[split], lines[split]
    shuffled = lines[split].split("output=")[1]
    assert "id#" not in shuffled and "case#" not in shuffled and "t#" not in shuffled, lines[split]


def test_through_a_join_the_operator_writes_its_own_input_columns(spark, tmp_path, database):
    """Where the columns of `withWatermark` cannot reach the operator as one row (a join with a
    table between them), the operator drops its late rows itself and the table holds its input
    columns."""
    stream = generate_stream(40, 3 * SEC, cases=2)
    write_files(str(tmp_path / "in"), stream.files)
    table = f"{database}.late_rows"
    keys = sorted({e[KEY] for f in stream.files for e in f})
    labels = spark.createDataFrame([(k, k.upper()) for k in keys], "k STRING, label STRING")

    def build(s):
        joined = s.withWatermark("ts", DELAY_TEXT).join(labels, "k")
        return joined.groupBy("label", swa.sliding_window("ts", "3 seconds")).agg(F.sum("v").alias("total"))

    with session_conf(spark, LATE_CONF, table):
        run = run_query(spark, str(tmp_path / "in"), str(tmp_path / "chk"), build, "append")
    assert sorted(spark.read.table(table).columns[:-5]) == ["label", "ts", "v"]
    late = stream.late(batch_plan(stream, [run]))
    events = {e[ID]: e for f in stream.files for e in f}
    expected = sorted((events[i][KEY].upper(), events[i][TIME], events[i][VALUE]) for i in late)
    assert sorted((r.label, micros(r.ts), r.v) for r in table_rows(spark, table)) == expected and late


def test_a_name_that_is_no_table_name_is_refused(spark, tmp_path):
    with session_conf(spark, LATE_CONF, "not a name"):
        message = run_until_error(spark, tmp_path)
    assert "[WINDOW_INVALID_SETTING]" in message and LATE_CONF in message and "such as late_rows" in message


@pytest.mark.parametrize("case", ["schema", "view", "json", "partitioned", "files", "clash"])
def test_an_unsuitable_table_is_refused_before_any_row(spark, tmp_path, database, case):
    table = f"{database}.late_rows"
    build = sliding_query("3 seconds")
    if case == "schema":
        spark.sql(f"CREATE TABLE {table} (k STRING, late_batch_id BIGINT) USING parquet")
        expected = ["[WINDOW_LATE_ROWS_TABLE.SCHEMA_MISMATCH]", "(k STRING, late_batch_id BIGINT)",
                    "(case INT, k STRING, t BIGINT, v BIGINT, id BIGINT, ts TIMESTAMP, late_batch_id BIGINT"]
    elif case == "view":
        spark.sql(f"CREATE VIEW {table} AS SELECT 1 AS x")
        expected = ["[WINDOW_LATE_ROWS_TABLE.UNSUITABLE]", "it is a view"]
    elif case == "json":
        spark.sql(f"CREATE TABLE {table} (x INT) USING json")
        expected = ["[WINDOW_LATE_ROWS_TABLE.UNSUITABLE]", "it is a json table"]
    elif case == "partitioned":
        spark.sql(f"CREATE TABLE {table} (x INT, p INT) USING parquet PARTITIONED BY (p)")
        expected = ["[WINDOW_LATE_ROWS_TABLE.UNSUITABLE]", "it is partitioned by p"]
    elif case == "files":
        spark.sql(f"CREATE TABLE {table} (`case` INT, k STRING, t BIGINT, v BIGINT, id BIGINT, ts TIMESTAMP, "
                  "late_batch_id BIGINT, late_watermark TIMESTAMP, late_operator STRING, "
                  "late_operator_id BIGINT, late_reason STRING) USING parquet")
        spark.sql(f"INSERT INTO {table} VALUES (1, 'a', 1, 1, 1, current_timestamp(), 0, current_timestamp(), "
                  "'x', 1000, 'watermark')")
        expected = ["[WINDOW_LATE_ROWS_TABLE.UNSUITABLE]", "holds files no query wrote as its late rows"]
    else:
        def build(s):  # a column of the stream named as a column of the table's own
            return (s.withColumn("late_reason", F.lit("x")).withWatermark("ts", DELAY_TEXT)
                    .groupBy("k", swa.sliding_window("ts", "3 seconds")).count())
        expected = ["[WINDOW_LATE_ROWS_TABLE.COLUMN_CLASH]", "`late_reason` is named twice",
                    "Rename those columns (with an alias) before withWatermark."]
    with session_conf(spark, LATE_CONF, table):
        message = run_until_error(spark, tmp_path, build)
    for text in expected:
        assert text in message, message
    assert f"spark_catalog.{table}" in message, message
    if case != "clash":
        assert "Name another table" in message, message


@pytest.mark.parametrize("case", ["no_database", "global_temp", "temporary_view"])
def test_a_name_the_query_cannot_use_or_a_view_hides_is_refused(spark, tmp_path, database, case):
    """A table in a missing database, in Spark's database of global temporary views, or named
    (without its database) as a temporary view of the session, which spark.read.table would read
    instead: the extension's condition, saying what to change, before any micro-batch."""
    name, expected = {
        "no_database": ("nodb_x.t", ["[WINDOW_LATE_ROWS_TABLE.DATABASE_NOT_FOUND]", "spark_catalog.nodb_x.t",
                                     "its database nodb_x does not exist", "CREATE DATABASE nodb_x"]),
        "global_temp": ("global_temp.g", ["[WINDOW_LATE_ROWS_TABLE.GLOBAL_TEMP_DATABASE]", "spark_catalog.global_temp.g",
                                          "global_temp is the database of the global temporary views"]),
        "temporary_view": ("late_view", ["[WINDOW_LATE_ROWS_TABLE.TEMPORARY_VIEW]", "spark_catalog.default.late_view",
                                         "temporary view named late_view", "(default.late_view)"]),
    }[case]
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW late_view AS SELECT 1 AS x")
    try:
        with session_conf(spark, LATE_CONF, name):
            message = run_until_error(spark, tmp_path)
    finally:
        spark.catalog.dropTempView("late_view")
    for text in expected:
        assert text in message, message
    assert not spark.catalog.tableExists("late_view", "default")


def test_a_table_of_another_query_or_an_unwritable_one_is_refused(spark, tmp_path, database):
    table = f"{database}.late_rows"
    stream = generate_stream(36, 3 * SEC, cases=1)
    write_files(str(tmp_path / "in"), stream.files)
    with session_conf(spark, LATE_CONF, table):
        run_query(spark, str(tmp_path / "in"), str(tmp_path / "chk"), sliding_query("3 seconds"), "append")
        message = run_until_error(spark, tmp_path, name="other")
    assert "[WINDOW_LATE_ROWS_TABLE.IN_USE]" in message and str(tmp_path / "chk") in message, message

    # A location under a file.
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    spark.sql(f"CREATE TABLE {database}.blocked (`case` INT, k STRING, t BIGINT, v BIGINT, id BIGINT, ts TIMESTAMP, "
              "late_batch_id BIGINT, late_watermark TIMESTAMP, late_operator STRING, late_operator_id BIGINT, "
              f"late_reason STRING) USING parquet LOCATION '{blocked}/t'")
    with session_conf(spark, LATE_CONF, f"{database}.blocked"):
        message = run_until_error(spark, tmp_path, name="in")
    assert "[WINDOW_LATE_ROWS_TABLE.NOT_WRITABLE]" in message and f"{blocked}/t" in message, message


def test_a_restart_with_another_table_or_none_is_refused(spark, tmp_path, database):
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "chk")
    stream = generate_stream(37, 3 * SEC, cases=1)
    write_files(source, stream.files[:2])
    with session_conf(spark, LATE_CONF, f"{database}.late_rows"):
        run_query(spark, source, checkpoint, sliding_query("3 seconds"), "append")
    write_files(source, stream.files[2:3], first=2)
    before = committed_batches(checkpoint)
    for setting in (f"{database}.other", None):
        query_conf = session_conf(spark, LATE_CONF, setting) if setting else _unset(spark)
        with query_conf:
            failure, at_start = query_failure(sliding_query("3 seconds")(read_stream(spark, source)).writeStream
                                              .foreachBatch(lambda df, _: df.collect())
                                              .option("checkpointLocation", checkpoint).trigger(availableNow=True))
        assert not at_start, failure
        message = str(failure)
        assert "[WINDOW_LATE_ROWS_SETTING_CHANGED]" in message, message
        assert f"spark_catalog.{database}.late_rows" in message
        assert (f"spark_catalog.{database}.other" if setting else "is now unset") in message, message
        assert committed_batches(checkpoint) == before


class _unset:
    def __init__(self, spark):
        self.spark, self.old = spark, None

    def __enter__(self):
        self.old = self.spark.conf.get(LATE_CONF, None)
        self.spark.conf.unset(LATE_CONF)

    def __exit__(self, *exc):
        if self.old is not None:
            self.spark.conf.set(LATE_CONF, self.old)


@pytest.mark.parametrize("function", ["sliding", "trailing"])
def test_rows_late_because_of_an_idle_close_say_so(spark, tmp_path, database, function):
    """An AvailableNow run with closeAtEndOfInput emits every window of its rows (every row, for
    trailing windows) at the end of its input; the next run's rows at or before what it emitted
    are late though Spark's watermark is below them: `idle_close`, with the watermark the
    operator dropped them by. Rows at or before Spark's own watermark: `watermark`."""
    source, checkpoint, table = str(tmp_path / "in"), str(tmp_path / "chk"), f"{database}.late_rows"
    base = sh.BASE
    first = [(0, "a", base + i * SEC, i, i) for i in range(11)]  # 0 s .. 10 s: Spark's watermark 5 s
    # After Spark's watermark (5 s) but at or before what the end of the first run emitted; before it.
    second = [(0, "a", base + 7 * SEC, 100, 100), (0, "a", base + 2 * SEC, 101, 101)]
    if function == "sliding":
        build = sliding_query("3 seconds")
        operator, name = "sliding_window", sh.OPERATOR
    else:
        build, operator, name = th.trailing_query, "trailing_window", th.OPERATOR
    runs = []
    with session_conf(spark, LATE_CONF, table), session_conf(spark, "spark.sql.slidingWindow.closeAtEndOfInput", "true"):
        write_files(source, [first])
        runs.append(run_query(spark, source, checkpoint, build, "append"))
        write_files(source, [second], first=1)
        runs.append(run_query(spark, source, checkpoint, build, "append"))
    rows = {r.id: r for r in table_rows(spark, table)}
    assert set(rows) == {100, 101}, sorted(rows)
    spark_watermark = base + 10 * SEC - sh.DELAY
    assert (rows[101].late_reason, micros(rows[101].late_watermark)) == ("watermark", spark_watermark)
    assert rows[100].late_reason == "idle_close" and micros(rows[100].late_watermark) >= base + 10 * SEC, rows[100]
    assert {r.late_operator for r in rows.values()} == {operator}
    written = sum(op["customMetrics"]["numLateRowsWritten"] for op in operator_metrics(runs, name))
    assert written == 2


# --------------------------------------------------------------------------------------------
# Killed anywhere, restarted: every late row once


CHILD = os.path.join(os.path.dirname(os.path.abspath(sh.__file__)), "late_rows_child.py")


def source_batches(checkpoint: str) -> dict:
    """{file source batch: [index of each file it lists]} from the file source's log (its
    entries and their compactions), its files named by their index (write_files)."""
    folder = os.path.join(checkpoint, "sources", "0")
    found = {}
    for name in os.listdir(folder):
        if name.split(".")[0].isdigit():  # `7`, `9.compact`; not `.7.crc` nor a temporary file
            for line in open(os.path.join(folder, name)).read().splitlines()[1:]:
                entry = json.loads(line)
                found.setdefault(entry["batchId"], set()).add(int(os.path.basename(entry["path"]).split(".")[0]))
    return {b: sorted(files) for b, files in found.items()}


def batches_of(checkpoint: str) -> list:
    """[(indices of the files the micro-batch read, its watermark ms)] by batch id, from the
    offset log: a micro-batch reads the file source's batches after the one the micro-batch
    before ended at, up to its own offset's, each one file (maxFilesPerTrigger 1). That is one
    file, none in a no-data micro-batch, and two after a run killed between the source's log
    entry of its next file and the offset log's entry of the micro-batch: the restart's
    micro-batch reads that file with the next one."""
    sources = source_batches(checkpoint)
    folder = os.path.join(checkpoint, "offsets")
    found, previous = [], -1
    for b in sorted(int(n) for n in os.listdir(folder) if n.isdigit()):
        lines = open(os.path.join(folder, str(b))).read().splitlines()
        watermark = json.loads(lines[1])["batchWatermarkMs"]
        offset = json.loads(lines[2])["logOffset"]
        found.append(([i for s in range(previous + 1, offset + 1) for i in sources[s]], watermark))
        previous = offset
    return found


def late_of_batches(files, checkpoint: str) -> set:
    """The ids of the rows late in the micro-batches the checkpoint's logs say ran: a row of
    file i, read by micro-batch b, is late when its time is at or before the watermark of
    micro-batch b - 1. Every file was read once."""
    batches = batches_of(checkpoint)
    assert committed_batches(checkpoint) == set(range(len(batches)))
    assert sorted(i for read, _ in batches for i in read) == list(range(len(files))), batches
    late = set()
    for b, (read, _) in enumerate(batches):
        if b > 0:
            late |= {e[ID] for i in read for e in files[i] if e[TIME] <= batches[b - 1][1] * MS}
    return late


def assert_written_once(spark, location: str, late: set) -> list:
    """The table at `location` holds the rows `late` once each, all published."""
    ids = [r.id for r in spark.read.parquet(location).collect()]
    assert len(ids) == len(set(ids)), f"late rows written twice: {sorted(i for i in set(ids) if ids.count(i) > 1)}"
    assert set(ids) == late, f"missing {sorted(late - set(ids))[:5]}, unexpected {sorted(set(ids) - late)[:5]}"
    assert len(late) > 5
    staged = os.listdir(os.path.join(location, "_late_rows"))
    assert [s for s in staged if not s.startswith(".")] == ["writer"], staged
    return ids


def child_files():
    """The trailing harness's stream, its files halved: more micro-batches for kills to land in."""
    stream = th.generate(43, cases=8)
    return [part for f in stream.files[:-1] for part in (f[: len(f) // 2], f[len(f) // 2:]) if part] + stream.files[-1:]


@pytest.mark.slow
def test_tasks_that_fail_after_writing_write_each_late_row_once(tmp_path, spark):
    """Every task of every micro-batch fails once after the operator wrote its late rows and
    committed its state; the retries write them again under the same names: each row once."""
    import subprocess
    import sys

    files = child_files()
    source, checkpoint, warehouse = str(tmp_path / "in"), str(tmp_path / "chk"), str(tmp_path / "warehouse")
    write_files(source, files)
    result = subprocess.run([sys.executable, CHILD, source, checkpoint, warehouse, str(tmp_path / "out"),
                             "--fail-once"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "the first attempt of every task fails" in result.stderr
    assert_written_once(spark, os.path.join(warehouse, "late_rows"), late_of_batches(files, checkpoint))


@pytest.mark.slow
def test_killed_anywhere_every_late_row_is_written_once(spark, tmp_path):
    """A child process runs a trailing windows query with a late-rows table and is killed with
    SIGKILL at random moments (in a micro-batch, in a commit, while it publishes), then restarted,
    until a run ends by itself. The table then holds exactly the rows late in the micro-batches
    the checkpoint's logs say ran (a row of file i, read by micro-batch b, is late when its time
    is at or before the watermark of micro-batch b - 1), once each; they and the rows the file
    sink received are every input row once."""
    import random
    import signal
    import subprocess
    import sys
    import time

    files = child_files()
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "chk")
    warehouse, output = str(tmp_path / "warehouse"), str(tmp_path / "out")
    write_files(source, files)
    rng = random.Random(43)
    kills = 0
    for attempt in range(6):
        child = subprocess.Popen([sys.executable, CHILD, source, checkpoint, warehouse, output],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                 start_new_session=True)
        if attempt < 4:
            deadline = time.time() + rng.uniform(5, 11)
            while time.time() < deadline and child.poll() is None:
                time.sleep(0.05)
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
                kills += 1
                continue
        _, err = child.communicate(timeout=300)
        assert child.returncode == 0, err[-3000:]
        break
    assert kills >= 2, "the child ran to its end before it could be killed twice"

    ids = assert_written_once(spark, os.path.join(warehouse, "late_rows"), late_of_batches(files, checkpoint))
    emitted = [r.id for r in spark.read.parquet(output).collect()]
    assert len(emitted) == len(set(emitted))
    kept = [e[ID] for f in files for e in f if e[KEY] != FLUSH_KEY]
    assert sorted(emitted + ids) == sorted(kept)


@pytest.mark.slow
@pytest.mark.every_spark
@pytest.mark.skipif(DELTA_MINOR not in maven_classpath.DELTA, reason=maven_classpath.DELTA_MISSING.get(DELTA_MINOR, ""))
def test_late_rows_streamed_into_a_delta_table_once_across_runs(spark, tmp_path):
    """The late-rows table streamed into a Delta table (docs/streaming.md, "Late rows in a Delta
    table"): two runs of the query, each followed by the copy; the Delta table holds every late
    row of the micro-batches the checkpoint says ran, once, the second run's copy adding only
    its own micro-batches' rows."""
    import subprocess
    import sys

    jars = maven_classpath.spark_jars(f"delta-{DELTA_MINOR}", [maven_classpath.DELTA[DELTA_MINOR]],
                                      os.path.join(os.path.dirname(pyspark.__file__), "jars"))
    files = child_files()
    source, checkpoint, warehouse = str(tmp_path / "in"), str(tmp_path / "chk"), str(tmp_path / "warehouse")
    delta = str(tmp_path / "late_rows_delta")
    half = len(files) // 2
    for first, part in ((0, files[:half]), (half, files[half:])):
        write_files(source, part, first=first)
        result = subprocess.run([sys.executable, CHILD, source, checkpoint, warehouse, str(tmp_path / "out"),
                                 "--delta", delta, jars], capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr[-3000:]
        if first == 0:
            copied = {r.id for r in spark.read.parquet(delta).collect()}  # Delta's files, as the first run left them
    late = late_of_batches(files, checkpoint)
    ids = [r.id for r in spark.read.parquet(os.path.join(warehouse, "late_rows")).collect()]
    assert sorted(ids) == sorted(late) and len(late) > 5
    # Read through Delta's log (its files are Parquet; the log says which are the table's).
    log = sorted(n for n in os.listdir(os.path.join(delta, "_delta_log")) if n.endswith(".json"))
    assert len(log) >= 2, log  # a Delta commit per run at least
    in_delta = [r.id for f in log for r in delta_added_rows(spark, delta, f)]
    assert len(in_delta) == len(set(in_delta)), "a late row twice in the Delta table"
    assert set(in_delta) == late
    assert copied and copied < late, "the first run's copy holds the first run's late rows only"


def delta_added_rows(spark, table: str, commit: str) -> list:
    """The rows of the files a Delta commit (`_delta_log/<n>.json`) adds."""
    adds = [json.loads(line)["add"]["path"] for line in open(os.path.join(table, "_delta_log", commit))
            if '"add"' in line]
    return spark.read.parquet(*[os.path.join(table, p) for p in adds]).collect() if adds else []


def test_a_micro_batch_after_a_kill_that_reads_two_files(spark, tmp_path, database):
    """A run killed after the file source logged its next file (`sources/0/<n>`, here written as
    the source writes it) and before the offset log had its micro-batch leaves that file to the
    restart, whose micro-batch reads it with the next one: the late rows of both are in the
    table, once each, as the killed test's reference (late_of_batches) finds them."""
    files = child_files()[:5]
    table = f"{database}.late_rows"
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "chk")
    with session_conf(spark, LATE_CONF, table):
        write_files(source, files[:2])
        run_query(spark, source, checkpoint, th.trailing_query, "append")
        write_files(source, files[2:], first=2)
        logged = os.path.join(checkpoint, "sources", "0")
        n = max(int(name) for name in os.listdir(logged) if name.isdigit())
        header, entry = open(os.path.join(logged, str(n))).read().splitlines()
        entry = json.loads(entry)
        entry.update(path=entry["path"].replace(f"{n:03d}.json", f"{n + 1:03d}.json"), batchId=n + 1,
                     timestamp=(sh.MTIME_BASE + n + 1) * 1000)
        with open(os.path.join(logged, str(n + 1)), "w") as out:
            out.write(f"{header}\n{json.dumps(entry)}")
        run_query(spark, source, checkpoint, th.trailing_query, "append")
    assert [n + 1, n + 2] in [read for read, _ in batches_of(checkpoint)]
    late = late_of_batches(files, checkpoint)
    assert late & {e[ID] for e in files[n + 1]}, "no late row in the file read with the next one"
    assert_written_once(spark, str(tmp_path / "db" / "late_rows"), late)


def test_a_table_dropped_between_runs_starts_again(spark, tmp_path, database):
    """A late-rows table dropped while the query is stopped is created again when it restarts,
    with the late rows from its first micro-batch on."""
    table = f"{database}.late_rows"
    stream, runs, checkpoint = run_in_two(spark, tmp_path, 38, table, between=lambda: spark.sql(f"DROP TABLE {table}"))
    plan = batch_plan(stream, runs)
    second = min(p["batchId"] for p in runs[1].progress)
    late = stream.late(plan)
    after = {e[ID] for b, batch in enumerate(plan) if b >= second
             for f in stream.files[batch.files_before:batch.files_through] for e in f} & late
    ids = sorted(r.id for r in table_rows(spark, table))
    assert ids == sorted(after) and after, (ids, sorted(after))
    record = json.loads(open(os.path.join(checkpoint, "_sliding_window_agg", "late-rows")).read())
    assert record["firstBatch"] == second


# Every type family the operator's input can hold (docs/streaming.md, "Column types"): a column
# computed from the event's `v` before the watermark, the type the table holds it as where that
# is not its own, and the first Spark that has the type. One stream carries them all.
def _vector(v):
    from pyspark.ml.functions import array_to_vector
    return array_to_vector(F.array(v.cast("double")))


TYPES = {
    "calendar_interval": (lambda v: F.expr(f"make_interval(0, 0, 0, CAST({v} AS INT))"), "string", (3, 5)),
    "year_month_interval": (lambda v: F.expr(f"make_ym_interval(0, CAST({v} AS INT))"), None, (3, 5)),
    "day_time_interval": (lambda v: F.expr(f"make_dt_interval(CAST({v} AS INT))"), None, (3, 5)),
    "timestamp_ntz": (lambda v: F.expr(f"CAST(timestamp_seconds({v}) AS TIMESTAMP_NTZ)"), None, (3, 5)),
    "varchar": (lambda v: F.expr(f"CAST(CAST({v} AS STRING) AS VARCHAR(20))"), None, (3, 5)),
    "user_defined": (lambda v: _vector(F.col(v)), None, (3, 5)),
    "nested_array": (lambda v: F.expr(f"array(make_interval(0, 0, 0, CAST({v} AS INT)))"), "array<string>", (3, 5)),
    "nested_map": (lambda v: F.expr(f"map('k', make_dt_interval(CAST({v} AS INT)))"), None, (3, 5)),
    "nested_struct": (lambda v: F.expr(f"named_struct('c', make_interval(0, 0, 0, CAST({v} AS INT)), "
                                       f"'y', make_ym_interval(0, CAST({v} AS INT)))"),
                      "struct<c:string,y:interval year to month>", (3, 5)),
    "variant": (lambda v: F.expr(f"parse_json(CAST({v} AS STRING))"), None, (4, 0)),
    "collated_string": (lambda v: F.expr(f"CAST({v} AS STRING) COLLATE UNICODE_CI"), None, (4, 0)),
    "time": (lambda v: F.expr(f"make_time(12, 0, CAST({v} AS DECIMAL(16, 6)))"), None, (4, 1)),
    "geometry": (lambda v: F.expr(f"st_geomfromwkb(if({v} >= 0, X'0101000000000000000000F03F0000000000000040', "
                                  "X'01'))"), None, (4, 3)),
}
TIME_TYPE_CONF = "spark.sql.timeType.enabled"


@pytest.fixture(scope="module")
def typed_late_rows(spark, tmp_path_factory):
    """One stream with a column of every type family of this Spark among the operator's inputs
    and a late-rows table: its late rows, and the same columns computed in batch from their `v`."""
    families = [f for f, (_, _, since) in TYPES.items() if sh.spark_version(spark) >= since]
    work = tmp_path_factory.mktemp("typed")
    database = f"late_{uuid.uuid4().hex[:8]}"
    spark.sql(f"CREATE DATABASE {database} LOCATION '{work / 'db'}'")
    table = f"{database}.typed"
    # Two rows in order, then two late ones (their v: 7 and 8).
    events = [[(0, "a", sh.BASE + 10 * SEC, 1, 1)], [(0, "a", sh.BASE + 30 * SEC, 2, 2)],
              [(0, "a", sh.BASE + 1 * SEC, 7, 3), (0, "a", sh.BASE + 2 * SEC, 8, 4)]]
    write_files(str(work / "in"), events)

    def build(s):
        typed = s.select("k", "ts", "v", *[TYPES[f][0]("v").alias(f) for f in families])
        return (typed.withWatermark("ts", DELAY_TEXT).groupBy("k", swa.sliding_window("ts", "3 seconds"))
                # Each column read where it may be null: Spark's optimizer counts a column that cannot be null as 1.
                .agg(F.sum("v").alias("v"), *[F.count(F.when(F.col("v") >= 0, F.col(f))).alias(f"n_{f}") for f in families]))
    with session_conf(spark, LATE_CONF, table), session_conf(spark, TIME_TYPE_CONF, "true"):
        run_query(spark, str(work / "in"), str(work / "chk"), build, "append")
        late = spark.read.table(table)
        expected = late.select("v", *[(TYPES[f][0]("v").cast(TYPES[f][1]) if TYPES[f][1] else TYPES[f][0]("v")).alias(f)
                                      for f in families])
        yield (families, late.schema, expected.schema, late.select("v", *[_text(f) for f in families]).collect(),
               expected.select("v", *[_text(f) for f in families]).collect())
    spark.sql(f"DROP DATABASE {database} CASCADE")


def _text(family: str):
    """A column as comparable text, in Spark (Python has no value for some of the types)."""
    if family == "geometry":
        return F.hex(F.expr("st_asbinary(geometry)")).alias(family)
    return F.col(family).cast("string").alias(family)


@pytest.mark.every_spark
@pytest.mark.parametrize("family", list(TYPES))
def test_every_column_type_is_written_as_spark_reads_it_back(spark, typed_late_rows, family):
    """A column of each type family is held in the table as its own type, read back equal to what
    the query computed; a calendar interval (alone or inside an array or struct), which Parquet
    cannot hold, as its text (what CAST(... AS STRING) gives), which a cast reads back."""
    families, schema, expected_schema, rows, expected = typed_late_rows
    if family not in families:
        pytest.skip(f"Spark {spark.version} has no {family} type")
    assert schema[family].dataType.simpleString() == expected_schema[family].dataType.simpleString()
    got, want = sorted((r.v, r[family]) for r in rows), sorted((r.v, r[family]) for r in expected)
    assert [v for v, _ in got] == [7, 8] and got == want, (got, want)
    if family == "calendar_interval":  # its text, read back by a cast: the interval itself
        back = spark.createDataFrame(got, "v BIGINT, c STRING") \
            .selectExpr("TIMESTAMP'2000-01-01' + CAST(c AS INTERVAL) = TIMESTAMP'2000-01-01' + "
                        "make_interval(0, 0, 0, CAST(v AS INT)) AS same").collect()
        assert [r.same for r in back] == [True, True], got
