"""Checks of the Python functions' arguments.

A wrong argument raises PySpark's own `PySparkTypeError` / `PySparkValueError`, naming the
argument, what it should be and what was given, as PySpark's functions do
(`[NOT_EXPECTED_TYPE] Argument `aggs` should be ..., got dict.`), instead of a bare
TypeError or AttributeError from deep inside the call.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

from pyspark.errors import PySparkTypeError, PySparkValueError
from pyspark.sql import Column, DataFrame

ColumnOrName = Union[Column, str]

AGGREGATES_EXPECTED = "a list of aggregate Columns, such as [F.sum('amount'), F.count('*')]"


# The conditions this package raises that PySpark 3.5 and 4.0 do not know yet, with their later message.
_NEWER_CONDITIONS = {
    "NOT_EXPECTED_TYPE": "Argument `<arg_name>` should be <expected_type>, got <arg_type>.",
}


def _pyspark_error(cls: type, condition: str, parameters: Dict[str, str]) -> Exception:
    """PySpark's own error of a condition: PySpark 4 names the arguments `errorClass` and
    `messageParameters`, PySpark 3.5 `error_class` and `message_parameters`; PySpark 3.5 and 4.0
    do not know every condition of later releases: those get the later message, with the same
    condition and parameters."""
    try:
        try:
            return cls(errorClass=condition, messageParameters=parameters)
        except TypeError:
            return cls(error_class=condition, message_parameters=parameters)
    except ValueError:  # "Cannot find main error class": a condition this PySpark does not know
        if condition not in _NEWER_CONDITIONS:
            raise
    message = _NEWER_CONDITIONS[condition]
    for name, value in parameters.items():
        message = message.replace(f"<{name}>", value)
    error = cls(message=message)
    if hasattr(error, "_errorClass"):  # PySpark 4
        error._errorClass, error._messageParameters = condition, parameters
    else:  # PySpark 3.5
        error.error_class, error.message_parameters = condition, parameters
    return error


def _type_error(arg_name: str, expected: str, value: Any) -> PySparkTypeError:
    return _pyspark_error(PySparkTypeError, "NOT_EXPECTED_TYPE", {
        "arg_name": arg_name, "expected_type": expected, "arg_type": type(value).__name__})


def dataframe(value: Any, arg_name: str = "df") -> DataFrame:
    """`value` itself, if it is a DataFrame (classic or Spark Connect)."""
    if not isinstance(value, DataFrame):
        hint = " (a table name: pass spark.table(name))" if isinstance(value, str) else ""
        raise _type_error(arg_name, "a DataFrame" + hint, value)
    return value


def column_or_name(value: Any, arg_name: str) -> ColumnOrName:
    """`value` itself, if it is a Column or a column name."""
    if isinstance(value, (Column, str)):
        return value
    raise _type_error(arg_name, "a Column or a column name (str)", value)


def _as_list(value: Any) -> Optional[list]:
    """The items of `value` when it is a list, a tuple or another iterable of items (not a
    string, a dict or a Column), else None."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, (str, bytes, dict, Column)) or value is None:
        return None
    try:
        return list(iter(value))
    except TypeError:
        return None


def columns(value: Any, arg_name: str) -> List[ColumnOrName]:
    """The grouping keys `value` stands for: one Column or name, or a list of them."""
    if isinstance(value, (str, Column)):
        return [value]
    items = _as_list(value)
    if items is None:
        raise _type_error(arg_name, "a Column, a column name (str), or a list of them ([] for "
                          "no key)", value)
    for i, item in enumerate(items):
        if not isinstance(item, (str, Column)):
            raise _type_error(f"{arg_name}[{i}]", "a Column or a column name (str)", item)
    return items


def aggregates(value: Any, arg_name: str = "aggs") -> List[Column]:
    """The aggregate columns of `value`: a non-empty list (or other iterable) of Columns."""
    if isinstance(value, Column):
        raise _type_error(arg_name, AGGREGATES_EXPECTED + " (put a single aggregate in a list)",
                          value)
    if isinstance(value, dict):
        raise _type_error(arg_name, AGGREGATES_EXPECTED + " (a dict such as {'amount': 'sum'} is "
                          "written [F.sum('amount')])", value)
    items = _as_list(value)
    if items is None:
        raise _type_error(arg_name, AGGREGATES_EXPECTED, value)
    for i, item in enumerate(items):
        if not isinstance(item, Column):
            raise _type_error(f"{arg_name}[{i}]", "an aggregate Column, such as F.sum('amount')",
                              item)
    if not items:
        raise _pyspark_error(PySparkValueError, "CANNOT_BE_EMPTY", {"item": f"aggregate in `{arg_name}`"})
    return items


def duration(value: Any, arg_name: str = "size") -> Union[str, Column]:
    """`value` itself, if it can be a window size: a non-empty string (or an interval Column)."""
    if isinstance(value, Column):
        return value
    if not isinstance(value, str):
        raise _type_error(arg_name, "a duration string, such as '10 seconds'", value)
    if not value.strip():
        raise _pyspark_error(PySparkValueError, "VALUE_NOT_NON_EMPTY_STR",
                             {"arg_name": arg_name, "arg_value": value})
    return value
