"""Sliding windows on local-cluster[2,1,1024] (two executor JVMs that get the extension only
through the jar configure() ships, as a user adds one jar and one pip package to a cluster): a
batch query, then a streaming query whose parent kills one executor JVM while a micro-batch is
running.

Usage: python executor_loss_child.py SOURCE CHECKPOINT LOG GATE_DIR REPORT_JSON

The batch query reads every JSON file in SOURCE at once; its windows (but the `__flush` key's)
go to REPORT_JSON. The streaming query runs `availableNow` over the same files (append mode,
RocksDB state, one file per micro-batch) and appends every emitted window, with its batch id, to
LOG as one JSON line.

The gate: a Python UDF over the aggregation's output, so it runs in the task of the stateful
stage that emits the window of key `__kill`. Every call on that row appends the task's identity
(executor JVM pid and id, partition, task attempt number and id) to GATE_DIR/attempts.jsonl. The
first call, while GATE_DIR/released does not exist, also writes GATE_DIR/blocked.json and waits
for its executor JVM to die: the parent creates `released`, then SIGKILLs that JVM. Spark runs
the task again elsewhere, where the gate lets the row through.

At the end REPORT_JSON also holds the executor ids registered before the stream started and every
executor Spark's status store knows, removed ones included, with its failed tasks.
"""
import json
import os
import sys
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sliding_window_agg as swa

ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
EXECUTOR_MAIN = b"CoarseGrainedExecutorBackend"


def process_state(pid):
    """(parent pid, state letter) of a process, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = stat[stat.rindex(")") + 2:].split()  # the command name may hold spaces
    return int(fields[1]), fields[0]


def alive(pid) -> bool:
    state = process_state(pid)
    return state is not None and state[1] not in ("Z", "X")


def executor_jvm():
    """(pid, executor id) of the executor JVM this Python worker runs under (its ancestor)."""
    pid = os.getpid()
    while pid > 1:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except FileNotFoundError:
            break
        if any(EXECUTOR_MAIN in a for a in args):
            return pid, args[args.index(b"--executor-id") + 1].decode()
        pid = process_state(pid)[0]
    raise RuntimeError("no CoarseGrainedExecutorBackend among this Python worker's ancestors")


def make_gate(gate_dir):
    def gate(k):
        if k != "__kill":
            return k
        from pyspark import TaskContext

        ctx = TaskContext.get()
        pid, executor = executor_jvm()
        first = not os.path.exists(os.path.join(gate_dir, "released"))
        record = {"pid": pid, "executor": executor, "partition": ctx.partitionId(),
                  "attempt": ctx.attemptNumber(), "task": ctx.taskAttemptId(), "stage": ctx.stageId(),
                  "blocked": first}
        with open(os.path.join(gate_dir, "attempts.jsonl"), "a") as f:
            f.write(json.dumps(record) + "\n")
        if first:
            tmp = os.path.join(gate_dir, "blocked.json.tmp")
            with open(tmp, "w") as f:
                json.dump(record, f)
            os.replace(tmp, os.path.join(gate_dir, "blocked.json"))
            deadline = time.time() + 900
            while alive(pid) and time.time() < deadline:
                time.sleep(0.05)
            raise RuntimeError(f"executor JVM {pid} was not killed")  # fails this attempt either way
        return k

    return gate


def main() -> None:
    source, checkpoint, log, gate_dir, report = sys.argv[1:6]
    spark = (swa.configure(SparkSession.builder.master("local-cluster[2,1,1024]"))
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "4")
             .config("spark.sql.streaming.stateStore.providerClass", ROCKSDB)
             # The executor JVMs start as the tests' other JVMs do (C1 only, the class data sharing
             # archive where their class path allows it: tests/conftest.py).
             .config("spark.executor.extraJavaOptions", os.environ.get("SPARK_SUBMIT_OPTS", ""))
             .getOrCreate())
    sc = spark.sparkContext
    sc.setLogLevel("WARN")  # stderr goes to a file the test shows when it fails

    def executor_ids():
        return sorted(i for i in sc._jsc.sc().getExecutorIds().mkString(",").split(",") if i)

    deadline = time.time() + 120
    while len(executor_ids()) < 2:  # both executors up before the stream, so one can be lost
        assert time.time() < deadline, "the two executors of local-cluster did not register"
        time.sleep(0.1)
    before = executor_ids()

    schema = "k string, t long, v long"
    batch = (spark.read.schema(schema).json(source).where(F.col("k") != "__flush").repartition(4)
             .withColumn("ts", F.timestamp_micros("t"))
             .groupBy("k", swa.sliding_window("ts", "3 seconds").alias("w"))
             .agg(F.count("*").alias("n"), F.sum("v").alias("total"), F.collect_list("v").alias("vs"))
             .select("k", F.unix_micros("w.start").alias("s"), F.unix_micros("w.end").alias("e"), "n", "total",
                     F.array_sort("vs").alias("vs")))
    batch_windows = [list(r) for r in batch.collect()]

    def sink(df, batch_id):
        rows = df.collect()
        with open(log, "a") as f:
            for r in rows:
                f.write(json.dumps({"batch": batch_id, "k": r.k, "s": r.s, "e": r.e, "n": r.n,
                                    "total": r.total, "vs": sorted(r.vs)}) + "\n")
            f.flush()
            os.fsync(f.fileno())

    gate = F.udf(make_gate(gate_dir), "string")
    query = (spark.readStream.schema(schema).option("maxFilesPerTrigger", 1)
             .json(source)
             .withColumn("ts", F.timestamp_micros("t")).withWatermark("ts", "1 second")
             .groupBy("k", swa.sliding_window("ts", "3 seconds").alias("w"))
             .agg(F.count("*").alias("n"), F.sum("v").alias("total"), F.collect_list("v").alias("vs"))
             .select(gate("k").alias("k"), F.unix_micros("w.start").alias("s"),
                     F.unix_micros("w.end").alias("e"), "n", "total", "vs")
             .writeStream.outputMode("append").foreachBatch(sink)
             .option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
    query.awaitTermination()

    summaries = sc._jsc.sc().statusStore().executorList(False)
    executors = []
    for i in range(summaries.size()):
        e = summaries.apply(i)
        if e.id() != "driver":
            executors.append({"id": e.id(), "active": e.isActive(), "failed_tasks": e.failedTasks(),
                              "removed": e.removeReason().isDefined()})
    with open(report, "w") as f:
        json.dump({"executors_before": before, "executors": executors, "batch": batch_windows}, f)
    spark.stop()


if __name__ == "__main__":
    main()
