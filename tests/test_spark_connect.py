"""Spark Connect: a Connect server started with the jar and the extension (pyspark's
sbin/start-connect-server.sh, or spark-submit of the server's class where the wheel lacks the
script), and Python clients that use the package's functions and SQL
through it; also configure() on Connect builders."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest
from pyspark.sql import SparkSession

import sliding_window_agg as swa
from checkout import SUPPORT, fresh_main_jar
from deploy_util import SPARK_HOME, SPEC_SIZE, SPEC_SLIDING, spark_env

CHILD = os.path.join(SUPPORT, "connect_child.py")

# Function of the package -> its windows over the contract's (docs/contract.md) rows with size
# SPEC_SIZE, as (start, end, count, ids). A function the package does not have yet is skipped.
CASES = {
    "sliding_window": SPEC_SLIDING,
    # In a batch query rows are applied in time order: tumbling windows [start, end).
    "batch_window": [(10, 20, 3, "ABC"), (20, 30, 1, "D"), (30, 40, 1, "E")],
}


def connect_client_missing() -> str:
    try:
        from pyspark.sql.connect.utils import check_dependencies

        try:
            check_dependencies()
        except TypeError:  # PySpark 3.5 and 4.0 take the importing module's name
            check_dependencies("pyspark.sql.connect")
    except Exception as e:  # the Connect client's Python dependencies (pyspark[connect])
        return str(e)
    return ""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc: subprocess.Popen) -> None:
    """Stops a process started in its own session, and everything it started."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


# One test worker runs this module's tests (`make test` runs pytest -n 2 --dist loadgroup): the
# Spark Connect server they use is started once, by a module fixture, and a client of "local[1]"
# starts one in its process on Connect's default port, as test_declarative_pipelines' runs do
# (group connect_default_port: one at a time).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("connect_default_port")]


def connect_server_command() -> list | None:
    """How docs/deployment.md starts a Connect server in the foreground with this pip pyspark:
    sbin/start-connect-server.sh --wait where the wheel has it (4.3), else spark-submit of the
    server's class where the wheel has the server's jar (4.0 to 4.2); None for 3.5."""
    script = os.path.join(SPARK_HOME, "sbin", "start-connect-server.sh")
    if os.path.exists(script):
        return [script, "--wait"]
    if any(name.startswith("spark-connect_") for name in os.listdir(os.path.join(SPARK_HOME, "jars"))):
        return [os.path.join(SPARK_HOME, "bin", "spark-submit"),
                "--class", "org.apache.spark.sql.connect.service.SparkConnectServer"]
    return None


@pytest.fixture(scope="module")
def connect_server(tmp_path_factory):
    """sc://127.0.0.1:<port> of a Spark Connect server that loads the jar and the extension."""
    missing = connect_client_missing()
    if missing:
        pytest.skip(f"Spark Connect client dependencies missing (pip install 'pyspark[connect]'): {missing}")
    command = connect_server_command()
    if command is None:
        import pyspark

        pytest.skip(f"pyspark {pyspark.__version__} from pip has no Spark Connect server (Spark 3.5 "
                    "ships it as the separate package org.apache.spark:spark-connect_2.12)")
    jar = fresh_main_jar()
    work = tmp_path_factory.mktemp("connect-server")
    port = free_port()
    log = open(work / "server.log", "w")
    proc = subprocess.Popen(
        [*command,
         "--master", "local[2]", "--jars", jar, "--conf", f"spark.sql.extensions={swa.EXTENSION_CLASS}",
         "--conf", f"spark.connect.grpc.binding.port={port}",
         "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
         "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=2",
         "--conf", "spark.sql.session.timeZone=UTC"],
        cwd=work, env=spark_env(SPARK_LOG_DIR=str(work), SPARK_PID_DIR=str(work)),
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while True:
            if proc.poll() is not None:
                pytest.fail(f"the Connect server exited with {proc.returncode}:\n"
                            + (work / "server.log").read_text()[-5000:])
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("the Connect server did not open its port:\n"
                                + (work / "server.log").read_text()[-5000:])
                time.sleep(0.5)
        yield f"sc://127.0.0.1:{port}"
    finally:
        stop(proc)
        log.close()


def run_client(url: str, functions: list) -> dict:
    proc = subprocess.Popen([sys.executable, CHILD, url, SPEC_SIZE, *functions],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=spark_env(), start_new_session=True)
    try:
        out, err = proc.communicate(timeout=300)
    finally:
        stop(proc)
    assert proc.returncode == 0, out[-2000:] + err[-5000:]
    assert "LOADED True" in out.splitlines(), out
    results = {"errors": {}, "stderr": err}
    for line in out.splitlines():
        if line.startswith("RESULT "):
            r = json.loads(line[len("RESULT "):])
            results[r["function"]] = r
        if line.startswith("TRAILING "):
            results["trailing"] = json.loads(line[len("TRAILING "):])
        if line.startswith("TRAILING_STREAM "):
            results["trailing_stream"] = json.loads(line[len("TRAILING_STREAM "):])
        if line.startswith("LATE_ROWS "):
            results["late_rows"] = json.loads(line[len("LATE_ROWS "):])
        if line.startswith("ERROR "):
            r = json.loads(line[len("ERROR "):])
            results["errors"][r["query"]] = r
    return results


def available_cases() -> list:
    return [name for name in CASES if hasattr(swa, name)]


@pytest.fixture(scope="module")
def server_results(connect_server):
    return run_client(connect_server, available_cases())


@pytest.mark.parametrize("function", list(CASES))
def test_connect_client_runs_window_functions(server_results, function):
    if not hasattr(swa, function):
        pytest.skip(f"sliding_window_agg has no {function} yet")
    expected = [list(r) for r in CASES[function]]
    assert server_results[function]["api"] == expected
    assert server_results[function]["sql"] == expected


def test_connect_client_runs_trailing_windows(server_results):
    """`trailing_window` (a plain PySpark WindowSpec) and SQL's interval frame over Connect: each
    row's trailing window of SPEC_SIZE, its left window in the contract's example, planned as the
    TrailingWindow operator."""
    want = [["A", 1, "A"], ["B", 2, "AB"], ["C", 3, "ABC"], ["D", 2, "CD"], ["E", 2, "DE"]]
    trailing = server_results["trailing"]
    assert trailing["api"] == want and trailing["sql"] == want and trailing["planned"], trailing


def test_connect_client_runs_trailing_windows_on_a_stream(server_results):
    """The same trailing windows on a stream of the rows, over Connect: each row emitted once the
    watermark (brought by a row an hour later) passes it, with the batch query's values."""
    want = [["A", 1, "A"], ["B", 2, "AB"], ["C", 3, "ABC"], ["D", 2, "CD"], ["E", 2, "DE"]]
    assert server_results["trailing_stream"]["rows"] == want, server_results["trailing_stream"]


def test_connect_client_gets_late_rows_in_the_table_sql_names(server_results):
    """`SET spark.sql.slidingWindow.lateRows.table = ...` from a Connect client: the stream's late
    row is in that table, which the client reads with SQL."""
    assert server_results["late_rows"]["rows"] == [["L", "trailing_window", "watermark"]], server_results["late_rows"]


@pytest.mark.parametrize("query,condition,sql_state", [
    ("invalid_size_sql", "WINDOW_INVALID_SIZE.INVALID_DURATION", "22023"),
    ("wrong_num_args_sql", "WINDOW_WRONG_NUM_ARGS.WRONG_COUNT", "42605"),
    ("distinct_api", "WINDOW_UNSUPPORTED_AGGREGATE.DISTINCT", "0A000"),
])
def test_connect_client_sees_error_conditions(server_results, query, condition, sql_state):
    """Over Spark Connect the client's AnalysisException has the condition, SQLSTATE and
    parameters of the server's exception, as for Spark's own errors."""
    error = server_results["errors"][query]
    assert error["type"] == "AnalysisException", error
    assert (error["condition"], error["sqlState"]) == (condition, sql_state), error
    assert error["message"].startswith(f"[{condition}] "), error
    assert error["parameters"]["function"] == "sliding_window", error


@pytest.mark.every_spark
def test_configure_on_local_connect_builder_loads_the_extension():
    """builder.remote("local[n]") starts the Connect server in the client's process: configure()
    gives it the jar and the extension as to a classic session, without pyspark's warnings that
    the client's session could not set them again (`Failed to set spark.jars ...`)."""
    missing = connect_client_missing()
    if missing:
        pytest.skip(f"Spark Connect client dependencies missing: {missing}")
    import pyspark

    if pyspark.__version__.startswith("3."):
        pytest.skip(f"pyspark {pyspark.__version__} from pip has no Spark Connect server (Spark 3.5 "
                    "ships it as the separate package org.apache.spark:spark-connect_2.12)")
    fresh_main_jar()
    results = run_client("local[1]", ["sliding_window"])
    assert results["sliding_window"]["api"] == [list(r) for r in SPEC_SLIDING]
    for key in ("spark.jars", "spark.sql.extensions"):
        assert f"Failed to set {key}" not in results["stderr"], results["stderr"][-3000:]


def test_configure_leaves_a_connect_server_builder_unchanged(monkeypatch):
    """A client cannot load a jar or a static extension into a running Connect server: configure()
    adds nothing (Spark would only warn that it cannot set them) and checks no local version."""
    monkeypatch.setattr(swa._configure, "check_spark_version",
                        lambda **_: pytest.fail("no version check for a remote server"))
    builder = SparkSession.Builder().remote("sc://localhost:15002")
    assert swa.configure(builder) is builder
    assert "spark.jars" not in builder._options and "spark.sql.extensions" not in builder._options
    monkeypatch.setenv("SPARK_REMOTE", "sc://localhost:15002")
    builder = SparkSession.Builder()
    swa.configure(builder)
    assert "spark.jars" not in builder._options


class _Conf:
    def get(self, key, default=None):
        return default


class _ConnectSession:
    """Stands for a pyspark.sql.connect session whose server lacks the extension."""
    conf = _Conf()


_ConnectSession.__module__ = "pyspark.sql.connect.session"


def test_missing_extension_on_connect_server_says_to_start_the_server_with_it():
    with pytest.raises(swa.ExtensionNotLoadedError) as e:
        swa._runtime.require_extension(_ConnectSession())
    message = str(e.value)
    assert "Spark Connect server" in message
    assert f"--jars {swa.jar_path()} --conf spark.sql.extensions={swa.EXTENSION_CLASS}" in message
    assert "start-connect-server.sh" in message
