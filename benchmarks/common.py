"""What every benchmark shares: the session, timing, the machine's description, reports."""
from __future__ import annotations

import os
import platform
import re
import subprocess
import threading
import time
from contextlib import contextmanager
from typing import Callable, Dict, Iterator, List, Optional, Sequence

from pyspark.sql import DataFrame, SparkSession

import sliding_window_agg as swa


def session(app: str, master: str = "local[2]", conf: Optional[Dict[str, str]] = None,
            driver_memory: Optional[str] = "4g") -> SparkSession:
    """A local session with the extension; `conf` on top of quiet defaults."""
    builder = (swa.configure(SparkSession.builder.master(master).appName(app))
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.session.timeZone", "UTC"))
    if driver_memory:
        builder = builder.config("spark.driver.memory", driver_memory)
    for k, v in (conf or {}).items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def run(df: DataFrame) -> None:
    """Computes every row of `df` and drops it (the `noop` sink): what a query costs to run."""
    df.write.format("noop").mode("overwrite").save()


class Timeout(Exception):
    """A query ran longer than the benchmark allows; it was cancelled."""


def timed(spark: SparkSession, action: Callable[[], None], repeat: int,
          timeout: Optional[float] = None) -> List[float]:
    """Seconds of each of `repeat` runs of `action`. A run longer than `timeout` is cancelled
    and raises Timeout (the runs after it are not attempted)."""
    times = []
    for _ in range(repeat):
        with cancel_after(spark, timeout):
            start = time.perf_counter()
            try:
                action()
            except Exception as e:  # cancelled by the timer, or a real failure
                if timeout is not None and time.perf_counter() - start >= timeout:
                    raise Timeout(f"cancelled after {timeout:.0f} s") from e
                raise
            times.append(time.perf_counter() - start)
    return times


@contextmanager
def cancel_after(spark: SparkSession, seconds: Optional[float]) -> Iterator[None]:
    """Cancels this thread's Spark jobs once `seconds` have passed."""
    if seconds is None:
        yield
        return
    sc = spark.sparkContext
    group = f"benchmark-{time.monotonic_ns()}"
    sc.setJobGroup(group, "benchmark run", interruptOnCancel=True)
    timer = threading.Timer(seconds, lambda: sc.cancelJobGroup(group))
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        sc.setLocalProperty("spark.jobGroup.id", None)


def machine() -> Dict[str, str]:
    """What the figures were measured on."""
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            names = re.findall(r"model name\s*:\s*(.+)", f.read())
        cpu = names[0] if names else cpu
    except OSError:
        pass
    memory = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(re.search(r"MemTotal:\s*(\d+)", f.read()).group(1))
        memory = f"{kb / 1024 / 1024:.0f} GiB"
    except (OSError, AttributeError):
        pass
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
    import pyspark

    return {
        "cpu": f"{cpu}, {os.cpu_count()} cores",
        "memory": memory,
        "os": f"{platform.system()} {platform.release()}",
        "java": java[0] if java else "?",
        "python": platform.python_version(),
        "spark": pyspark.__version__,
    }


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def machine_markdown() -> str:
    return markdown_table(["", ""], list(machine().items()))


def publish(report: str, path: Optional[str]) -> None:
    """Prints a benchmark's Markdown report, and writes it to `path` when one is given."""
    print(report)
    if path:
        with open(path, "w") as f:
            f.write(report + "\n")


def finish(spark: SparkSession, report: str, path: Optional[str], results: List[Dict]) -> Dict:
    """Publishes the report and stops the session; exits non-zero when a query of ours gave other
    rows than plain Spark's (`same_rows` False in a result)."""
    publish(report, path)
    spark.stop()
    if any(r["same_rows"] is False for r in results):
        raise SystemExit(1)
    return {"results": results}


def seconds(t: Optional[float]) -> str:
    return "-" if t is None else f"{t:.2f}"


def ratio(a: Optional[float], b: Optional[float], at_least: bool = False) -> str:
    if a is None or b is None:
        return "-"
    return ("> " if at_least else "") + f"{a / b:.1f}x"
