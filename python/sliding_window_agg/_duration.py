"""Durations as microseconds, for the frames of trailing windows: `"10 minutes"`,
`"1 hour 30 minutes"`, `"500 milliseconds"`, or a `datetime.timedelta`. A day is 24 hours and a
week 7 days; months and years vary in length and are refused."""
from __future__ import annotations

import datetime
import re
from typing import Any

from pyspark.errors import PySparkValueError

_UNITS = {
    "microsecond": 1, "us": 1,
    "millisecond": 1_000, "ms": 1_000,
    "second": 1_000_000, "s": 1_000_000, "sec": 1_000_000,
    "minute": 60_000_000, "min": 60_000_000,
    "hour": 3_600_000_000, "h": 3_600_000_000,
    "day": 86_400_000_000, "d": 86_400_000_000,
    "week": 604_800_000_000,
}
_PART = re.compile(r"\s*(\d+)\s*([a-zA-Z]+)\s*")


def micros(value: Any, arg_name: str = "size") -> int:
    """`value` in microseconds: a timedelta, or a string of `<number> <unit>` parts."""
    if isinstance(value, datetime.timedelta):
        total = (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds
    elif isinstance(value, str):
        total, pos, text = 0, 0, value.strip()
        if text.lower().startswith("interval"):
            text = text[len("interval"):].strip().strip("'\"")
        while pos < len(text):
            m = _PART.match(text, pos)
            unit = m and m.group(2).lower()
            unit = unit[:-1] if unit and unit.endswith("s") and unit[:-1] in _UNITS else unit
            if not m or unit not in _UNITS:
                raise _invalid(arg_name, value)
            total += int(m.group(1)) * _UNITS[unit]
            pos = m.end()
        if pos == 0:
            raise _invalid(arg_name, value)
    else:
        raise _invalid(arg_name, value)
    if total < 0:
        raise _invalid(arg_name, value)
    return total


def _invalid(arg_name: str, value: Any) -> PySparkValueError:
    return PySparkValueError(
        errorClass="VALUE_NOT_ALLOWED",
        messageParameters={"arg_name": arg_name, "allowed_values":
                           f"a fixed-length duration such as '10 minutes', '1 hour 30 minutes' or a "
                           f"datetime.timedelta, not {value!r} (months and years vary in length)"})
