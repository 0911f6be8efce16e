"""Durations as microseconds, for the frames of trailing windows, by the rule of every duration the
extension takes (docs/user-guide.md, "Durations"; the Scala side is DurationText): Spark's interval
string (`"10 minutes"`, `"1 hour 30 minutes"`, `"INTERVAL 500 milliseconds"`) or Spark's
time-setting string (`"30s"`, `"5min"`, `"250ms"`, `"2h"`, `"1d"`), or a `datetime.timedelta`. A
bare number has no unit and is refused. A day is 24 hours and a week 7 days; months and years vary
in length and are refused."""
from __future__ import annotations

import datetime
import re
from decimal import Decimal
from typing import Any

from pyspark.errors import PySparkValueError

# Spark's time settings (JavaUtils.timeStringAs): an integer and one of these suffixes.
_TIME_SETTING = re.compile(r"(-?\d+)(us|ms|s|m|min|h|d)")
_SETTING_UNITS = {"us": 1, "ms": 1_000, "s": 1_000_000, "m": 60_000_000, "min": 60_000_000,
                  "h": 3_600_000_000, "d": 86_400_000_000}
# Spark's interval strings (IntervalUtils.stringToInterval): signed numbers, each with a unit.
_INTERVAL_PART = re.compile(r"\s*([+-]?\d+(?:\.\d+)?)\s*(microsecond|millisecond|second|minute|hour|day|week"
                            r"|month|year)s?(?=\s|$)")
_INTERVAL_UNITS = {"microsecond": 1, "millisecond": 1_000, "second": 1_000_000, "minute": 60_000_000,
                   "hour": 3_600_000_000, "day": 86_400_000_000, "week": 604_800_000_000}


def micros(value: Any, arg_name: str = "size") -> int:
    """`value` in microseconds: a timedelta, or a string by the rule above."""
    if isinstance(value, datetime.timedelta):
        total = (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds
    elif isinstance(value, str):
        total = _from_text(value.strip().lower(), arg_name, value)
    else:
        raise _invalid(arg_name, value)
    if total < 0:
        raise _invalid(arg_name, value)
    return total


def _from_text(text: str, arg_name: str, value: Any) -> int:
    setting = _TIME_SETTING.fullmatch(text)
    if setting:
        return int(setting.group(1)) * _SETTING_UNITS[setting.group(2)]
    if text.startswith("interval"):
        text = text[len("interval"):]
    total, pos = Decimal(0), 0
    while pos < len(text):
        part = _INTERVAL_PART.match(text, pos)
        if not part or part.group(2) in ("month", "year"):
            raise _invalid(arg_name, value)
        total += Decimal(part.group(1)) * _INTERVAL_UNITS[part.group(2)]
        pos = part.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    if pos == 0 or total != int(total):
        raise _invalid(arg_name, value)
    return int(total)


def _invalid(arg_name: str, value: Any) -> PySparkValueError:
    return PySparkValueError(
        errorClass="VALUE_NOT_ALLOWED",
        messageParameters={"arg_name": arg_name, "allowed_values":
                           f"a fixed-length duration such as '10 minutes', '1 hour 30 minutes', 30s, 5min or a "
                           f"datetime.timedelta, not {value!r} (a bare number has no unit; months and years "
                           f"vary in length)"})
