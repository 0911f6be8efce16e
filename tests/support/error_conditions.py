"""The extension's error conditions file (the jar's error/sliding-window-error-conditions.json),
and checks that an exception has one of its conditions."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional, Tuple

from checkout import ROOT

CONDITIONS_FILE = os.path.join(ROOT, "scala", "src", "main", "resources", "error",
                               "sliding-window-error-conditions.json")


def load() -> Dict[str, dict]:
    with open(CONDITIONS_FILE, encoding="utf-8") as f:
        return json.load(f)


def conditions() -> Dict[str, dict]:
    """Every condition as getCondition() returns it (MAIN or MAIN.SUB) -> its sqlState and
    message template (a sub-condition's follows its main condition's, as Spark joins them)."""
    out = {}
    for main, info in load().items():
        template = "\n".join(info["message"])
        for sub, sub_info in sorted(info.get("subClass", {}).items()):
            out[f"{main}.{sub}"] = {"sqlState": info["sqlState"],
                                    "template": template + " " + "\n".join(sub_info["message"])}
        if "subClass" not in info:
            out[main] = {"sqlState": info["sqlState"], "template": template}
    return out


def condition_of(e: Any) -> Optional[str]:
    """The condition of a PySpark exception, or of a Java one through py4j: `getCondition()`
    (Spark 4), `getErrorClass()` (Spark 3.5, where conditions were called error classes)."""
    from py4j.protocol import Py4JError

    for getter in ("getCondition", "getErrorClass"):
        method = getattr(e, getter, None)  # a py4j object answers any name, and fails the call
        if method is None:
            continue
        try:
            return method()
        except Py4JError:
            continue
    return None


def assert_condition(e: Any, condition: str, sql_state: Optional[str] = None) -> None:
    """`e` (a PySpark or Connect exception, or a Java one through py4j) has `condition` of the
    file, with its SQLSTATE (and that is `sql_state`, if given)."""
    known = conditions()
    assert condition in known, f"{condition} is not in {CONDITIONS_FILE}"
    assert condition_of(e) == condition, f"{condition_of(e)} != {condition}: {e}"
    assert e.getSqlState() == known[condition]["sqlState"], (e.getSqlState(), str(e))
    if sql_state is not None:
        assert e.getSqlState() == sql_state


def run_time_cause(e: BaseException) -> Any:
    """The extension's exception (a Java object) among the causes of a failed job's exception,
    as classic PySpark raises it (a Py4JJavaError or a converted exception)."""
    java = getattr(e, "java_exception", None)
    if java is None:
        java = getattr(e, "_origin", None)
    while java is not None:
        condition = condition_of(java)
        if condition and condition.startswith("WINDOW_"):
            return java
        java = java.getCause()
    raise AssertionError(f"no error condition of the extension among the causes of {e!r}")


def query_failure(writer, timeout: float = 120) -> Tuple[BaseException, bool]:
    """The exception the streaming query `writer` starts fails with, and whether `start()` raised
    it (else `awaitTermination()` did, once the query stopped). A query that does not fail within
    `timeout` seconds fails the test."""
    try:
        query = writer.start()
    except Exception as e:  # noqa: BLE001  (the caller checks what it is)
        return e, True
    try:
        query.awaitTermination(timeout)
    except Exception as e:  # noqa: BLE001
        return e, False
    finally:
        query.stop()
    raise AssertionError("the query did not fail")
