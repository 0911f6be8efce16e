"""State format 2 (docs/architecture.md, "State format versions"): each group's state in one
record while it is small, in rows of its own once it outgrows
`spark.sql.slidingWindow.state.inlineRows`, and back in the record once it has shrunk to half
of that. Random streams, restarted from their checkpoint at every micro-batch, with limits small
enough that groups cross the threshold both ways, give exactly the windows of the brute-force
reference (tests/support/reference.py) on both state store providers and in both output modes; Spark's
state data source shows the groups' rows moving."""
from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, Set

import pytest

from streaming_harness import (CHECKS, CHUNK_ROWS_CONF, HDFS, HOT_ROWS_CONF, INLINE_ROWS_CONF, RECORD_CACHE_CONF,
                               RESWEEP_ROWS_CONF, ROCKSDB, VERIFY_ROW_COUNT_CONF, generate_stream, has_state_reader,
                               has_time_index, operator_metrics, run_query, session_conf, sliding_query,
                               state_format, state_store, write_files)

# Long runs: the operator harness checks state format 2 under every record setting, random restarts
# and both modes in the fast tier; here each limit is crossed once through real queries, where Spark's
# state data source shows the rows moving and the metrics are the ones users read.
pytestmark = pytest.mark.slow

PARTIAL, SUFFIX, META, RECORD, PARTIAL_CHUNK, SUFFIX_CHUNK = 0, 1, 2, 3, 4, 5
OPERATOR_ID = 1000


def stored_kinds(spark, checkpoint: str) -> Dict[tuple, Set[int]]:
    """{(case, key): the kinds of the group's state rows} after the last committed micro-batch."""
    rows = (spark.read.format("statestore").option("operatorId", OPERATOR_ID).load(checkpoint)
            .selectExpr("key.case AS case", "key.k AS k", "key.__kind AS kind").collect())
    kinds: Dict[tuple, Set[int]] = defaultdict(set)
    for r in rows:
        kinds[(r.case, r.k)].add(r.kind)
    return kinds


def queued_groups(spark, checkpoint: str) -> Dict[tuple, bool]:
    """{(case, key): whether its record keeps a queue (Meta fields)} after the last micro-batch."""
    rows = (spark.read.format("statestore").option("operatorId", OPERATOR_ID).load(checkpoint)
            .where(f"key.__kind = {RECORD}")
            .selectExpr("key.case AS case", "key.k AS k", "value.__t1 IS NOT NULL AS queued").collect())
    return {(r.case, r.k): r.queued for r in rows}


def run_file_by_file(spark, tmp_path, stream, mode: str, read_state: bool, read=stored_kinds):
    """Runs the query once per file: it restarts from its checkpoint before every micro-batch.
    Returns the runs and, with `read_state`, what `read` says of the state after each."""
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "checkpoint")
    runs, states = [], []
    for i, rows in enumerate(stream.files):
        write_files(source, [rows], first=i)
        runs.append(run_query(spark, source, checkpoint, sliding_query("10 seconds"), mode))
        if read_state:
            states.append(read(spark, checkpoint))
    return runs, states


@pytest.mark.parametrize("mode,seed,inline_rows,verify", [("append", 1, 2, "true")])
def test_groups_crossing_the_inline_limit_both_ways(spark, provider, tmp_path, mode, seed, inline_rows, verify):
    """The tests' session has RocksDB count its keys too and checks the operator's count against
    it (VERIFY_ROW_COUNT_CONF); one seed runs as users do, with RocksDB's count off."""
    stream = generate_stream(f"records-{seed}", 10_000_000, cases=6)
    with state_format(spark, 2), session_conf(spark, INLINE_ROWS_CONF, str(inline_rows)), \
            session_conf(spark, VERIFY_ROW_COUNT_CONF, verify):
        runs, states = run_file_by_file(spark, tmp_path, stream, mode,
                                        read_state=provider == HDFS and has_state_reader(spark))
    CHECKS[mode](stream, runs)
    moves = [(m["customMetrics"]["numGroupsMovedToRows"], m["customMetrics"]["numGroupsMovedToRecords"])
             for m in operator_metrics(runs)]
    assert sum(out for out, _ in moves) > 0, f"harness: no group outgrew its record: {moves}"
    assert sum(back for _, back in moves) > 0, f"harness: no group moved back into its record: {moves}"
    if states:
        large = defaultdict(list)  # group -> whether it had rows outside its record, run by run
        for state in states:
            for group, kinds in state.items():
                assert RECORD in kinds and META not in kinds, (group, kinds)
                large[group].append(bool(kinds & {PARTIAL, SUFFIX}))
        assert any(any(seq) for seq in large.values()), "no group had rows outside its record"


@pytest.mark.parametrize("mode", ["update"])
def test_every_group_in_its_record_below_the_limit(spark, tmp_path, mode):
    """With the default limit, the random streams' groups stay small: one state row each (read
    from Spark's default provider, whose state the state data source reads)."""
    if not has_state_reader(spark):
        pytest.skip(f"Spark {spark.version} has no state data source")
    stream = generate_stream("records-small", 10_000_000, cases=6)
    with state_store(spark, HDFS), state_format(spark, 2):
        runs, states = run_file_by_file(spark, tmp_path, stream, mode, read_state=True)
    CHECKS[mode](stream, runs)
    assert any(states)
    for state in states:
        for group, kinds in state.items():
            assert kinds == {RECORD}, (group, kinds)


@pytest.mark.parametrize("seed,resweep_rows", [(11, 1)])
def test_groups_crossing_the_resweep_limit_both_ways(spark, provider, tmp_path, seed, resweep_rows):
    """Append mode: a group with at most `resweepRows` rows is swept again in memory and keeps no
    queue; a larger one resumes the queue kept in its record. Groups that grow past the limit
    start a queue, groups that shrink under it drop theirs, restarted at every micro-batch."""
    stream = generate_stream(f"resweep-{seed}", 10_000_000, cases=6)
    read_state = provider == HDFS and has_state_reader(spark)
    with state_format(spark, 2), session_conf(spark, RESWEEP_ROWS_CONF, str(resweep_rows)):
        runs, states = run_file_by_file(spark, tmp_path, stream, "append", read_state, read=queued_groups)
    CHECKS["append"](stream, runs)
    if states:
        grew = shrank = 0
        for before, after in zip(states, states[1:]):
            for group, queued in after.items():
                if group in before:
                    grew += queued and not before[group]
                    shrank += before[group] and not queued
        assert grew and shrank, f"harness: no group crossed the limit both ways ({grew} grew, {shrank} shrank)"


@pytest.mark.parametrize("mode,seed,chunk_rows,hot_rows,verify",
                         [("append", 21, 1, 0, "true"), ("update", 23, 3, 0, "true")])
def test_groups_keeping_chunks_out_of_their_record(spark, provider, tmp_path, mode, seed, chunk_rows, hot_rows,
                                                   verify):
    """A group larger than `resweepRows` keeps all but its oldest and newest `hotRows` rows of a
    kind in chunks of `chunkRows`, rows of their own out of its record, loaded when a visit
    reaches them and moved out again: with limits so small that every group with a few rows has
    chunks, loads them, splits and drops them, restarted at every micro-batch, the windows are
    exactly the reference's. Update mode's visits read every row of the windows that changed:
    its groups keep no chunks."""
    stream = generate_stream(f"chunks-{seed}", 10_000_000, cases=6)
    read_state = provider == HDFS and has_state_reader(spark)
    with state_format(spark, 2), session_conf(spark, RESWEEP_ROWS_CONF, "0"), \
            session_conf(spark, CHUNK_ROWS_CONF, str(chunk_rows)), session_conf(spark, HOT_ROWS_CONF, str(hot_rows)), \
            session_conf(spark, VERIFY_ROW_COUNT_CONF, verify):
        runs, states = run_file_by_file(spark, tmp_path, stream, mode, read_state)
    CHECKS[mode](stream, runs)
    if states:
        chunked = [kinds & {PARTIAL_CHUNK, SUFFIX_CHUNK} for state in states for kinds in state.values()]
        if mode == "append":
            assert any(PARTIAL_CHUNK in c for c in chunked), "harness: no group kept Partial rows in chunks"
            if chunk_rows == 1 and hot_rows == 0:  # a queue's front of two suffixes moves one out
                assert any(SUFFIX_CHUNK in c for c in chunked), "harness: no group kept Suffix rows in chunks"
        else:
            assert not any(chunked), "update mode moved rows into chunks"


@pytest.mark.parametrize("mode", ["append"])
def test_the_operator_counts_its_state_rows(spark, tmp_path, mode):
    """With RocksDB's time index, the operator counts its state rows itself (RocksDB's count reads
    every key before it is written or deleted) and reports them as numRowsTotal. Groups whose rows
    move into chunks, out of their record and back, restarted at every micro-batch: the counts
    are those of RocksDB's own count of the same stream, micro-batch by micro-batch (the tests'
    session checks one against the other; here the first run counts as users run it)."""
    if not has_time_index(spark, ROCKSDB):
        pytest.skip(f"Spark {spark.version} has no time index")
    stream = generate_stream("counts-31", 10_000_000, cases=6)
    totals = {}
    for verify in ("false", "true"):
        with state_store(spark, ROCKSDB), state_format(spark, 2), session_conf(spark, VERIFY_ROW_COUNT_CONF, verify), \
                session_conf(spark, INLINE_ROWS_CONF, "4"), session_conf(spark, RESWEEP_ROWS_CONF, "0"), \
                session_conf(spark, CHUNK_ROWS_CONF, "1"), session_conf(spark, HOT_ROWS_CONF, "0"):
            runs, _ = run_file_by_file(spark, tmp_path / verify, stream, mode, read_state=False)
        CHECKS[mode](stream, runs)
        totals[verify] = [m["numRowsTotal"] for m in operator_metrics(runs)]
    assert totals["false"] == totals["true"], totals
    assert max(totals["false"]) > 0, totals


@pytest.mark.parametrize("mode", ["update"])
def test_records_read_from_memory_between_micro_batches(spark, tmp_path, mode):
    """With RocksDB's time index, a micro-batch reads the group records that the one before it
    committed from the executor's memory (state/RecordCache.scala; the metric
    numRecordsReadFromCache), also when the query restarts from its checkpoint in the same JVM, as
    here at every micro-batch, while groups (in append mode) load chunks and move them out again:
    the windows are exactly the reference's. With the cache off, every record is read from the store, and the
    windows are the same. (Which records a micro-batch may trust, a rerun's or a failed task's,
    is tested on the store itself: RecordCacheSuite.)"""
    if not has_time_index(spark, ROCKSDB):
        pytest.skip(f"Spark {spark.version} has no time index")
    stream = generate_stream("cache-41", 10_000_000, cases=6)
    cached = {}
    for max_bytes in ("64m", "0"):
        with state_store(spark, ROCKSDB), state_format(spark, 2), session_conf(spark, RECORD_CACHE_CONF, max_bytes), \
                session_conf(spark, RESWEEP_ROWS_CONF, "0"), session_conf(spark, CHUNK_ROWS_CONF, "1"), \
                session_conf(spark, HOT_ROWS_CONF, "0"):
            runs, _ = run_file_by_file(spark, tmp_path / f"cache{max_bytes}", stream, mode, read_state=False)
        CHECKS[mode](stream, runs)
        cached[max_bytes] = [m["customMetrics"]["numRecordsReadFromCache"] for m in operator_metrics(runs)]
    assert sum(cached["64m"]) > 0, cached
    assert sum(cached["0"]) == 0, cached
