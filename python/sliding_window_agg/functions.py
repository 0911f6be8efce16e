"""Column functions and helpers for sliding-window and batch-window aggregations."""
from __future__ import annotations

import datetime
from typing import Iterable, Optional, Union

from pyspark.sql import Column, DataFrame, Window, WindowSpec
from pyspark.sql import functions as F
from pyspark.sql.utils import get_active_spark_context, is_remote

from . import _arguments as arguments
from . import _duration
from ._runtime import current_session, require_extension

ColumnOrName = Union[Column, str]


def _window_call(name: str, time: ColumnOrName, size: Union[str, Column],
                 order: Optional[ColumnOrName] = None) -> Column:
    """The unresolved call of the SQL function `name`, resolved by name when the query is
    analysed (on the Spark Connect server too).

    Like PySpark's own column functions it needs no session, only a SparkContext (outside
    Spark Connect), so it works in every thread.
    """
    if not is_remote():
        get_active_spark_context()  # PySpark's own SESSION_OR_CONTEXT_NOT_EXISTS, as F.window
    args = [time, F.lit(size)] + ([] if order is None else [order])
    return F.call_function(name, *args)


def _require_extension_for_columns() -> None:
    """The current session (the thread's active one, else the default one) must have the
    extension. Without any session the extension cannot be checked here: Spark reports an
    unknown function when the query is analysed."""
    require_extension(current_session())


def sliding_window(time: ColumnOrName, size: str) -> Column:
    """Groups rows into the KIP-450 sliding windows of `size` over `time`.

    Use it in `groupBy`, like `pyspark.sql.functions.session_window`: one window per distinct
    set of rows that a window of `size` can hold, both bounds inclusive. The resulting column
    `sliding_window` is a `struct<start, end>` of the time column's type. Rows with a null
    time belong to no window.

    On a streaming DataFrame, put a watermark on `time` first, such as
    `withWatermark("ts", "5 seconds")`: append mode emits each window once, when the watermark
    passes its end.

    The column calls the SQL function by name (`F.call_function("sliding_window", ...)`), so it
    works on Spark Connect too. Spark checks the arguments when the aggregation is analysed.

    It can be called in any thread, like PySpark's column functions: the extension is checked
    in the thread's active session, else in the default session (the one `getOrCreate()`
    returned).

    Args:
        time: a TIMESTAMP or TIMESTAMP_NTZ column, or its name.
        size: a positive fixed-length duration (docs/user-guide.md, "Durations"), such as
            `"10 seconds"`, `"5 minutes"` or `"30s"`.

    Returns:
        The grouping column `sliding_window`.

    Raises:
        ExtensionNotLoadedError: the active (or default) Spark session lacks the extension.
        PySparkRuntimeError: no Spark session exists yet (`SESSION_OR_CONTEXT_NOT_EXISTS`, as
            PySpark's own column functions raise it).
        PySparkTypeError: an argument of the wrong type (`NOT_EXPECTED_TYPE`).

    Example:
        ```python
        df.groupBy("user", sliding_window("ts", "10 seconds")).agg(F.sum("amount"))
        ```
    """
    time = arguments.column_or_name(time, "time")
    size = arguments.duration(size, "size")
    column = _window_call("sliding_window", time, size)
    _require_extension_for_columns()
    return column


def batch_window(time: ColumnOrName, size: str, order: Optional[ColumnOrName] = None) -> Column:
    """Groups rows into batch windows of `size`: tumbling windows chosen by stream time.

    Use it in `groupBy`, like `pyspark.sql.functions.window`. Each row goes to the window
    `[floor(st / size) * size, + size)` of its group's stream time `st` when the row is
    applied: the largest time the group has seen so far (and, in a stream, at least the
    watermark of the micro-batch). Late rows are therefore never dropped: they join the current
    window. The resulting column `batch_window` is a `struct<start, end>` (start inclusive,
    end exclusive) of the time column's type. Rows with a null time belong to no window.

    Rows are applied in time order (the result then equals `window(time, size)`), or in the
    order of `order` when given, such as a source offset giving the arrival order. A stream
    applies a group's rows in time order within a micro-batch (or by `order`), and micro-batches
    in arrival order.

    It can be called in any thread, like PySpark's column functions: the extension is checked
    in the thread's active session, else in the default session (the one `getOrCreate()`
    returned).

    Args:
        time: a TIMESTAMP or TIMESTAMP_NTZ column, or its name.
        size: a positive fixed-length duration, such as `"5 seconds"`.
        order: a sortable column, or its name, giving the order rows are applied in.

    Returns:
        The grouping column `batch_window`.

    Raises:
        ExtensionNotLoadedError: the active (or default) Spark session lacks the extension.
        PySparkRuntimeError: no Spark session exists yet (`SESSION_OR_CONTEXT_NOT_EXISTS`, as
            PySpark's own column functions raise it).
        PySparkTypeError: an argument of the wrong type (`NOT_EXPECTED_TYPE`).

    Example:
        ```python
        df.groupBy("user", batch_window("ts", "5 seconds")).agg(F.collect_list("payload"))
        ```
    """
    time = arguments.column_or_name(time, "time")
    size = arguments.duration(size, "size")
    order = None if order is None else arguments.column_or_name(order, "order")
    column = _window_call("batch_window", time, size, order)
    _require_extension_for_columns()
    return column


def sliding_window_agg(
    df: DataFrame,
    by: Union[ColumnOrName, Iterable[ColumnOrName]],
    time: ColumnOrName,
    size: str,
    aggs: Iterable[Column],
) -> DataFrame:
    """Aggregates `df` over the sliding windows of `size` per `by` group.

    Equivalent to `df.groupBy(*by, sliding_window(time, size)).agg(*aggs)`: the result has the
    `by` columns, the `sliding_window` column and one column per aggregate.

    It uses the session of `df` (not the thread's active one), so it works in any thread.

    Args:
        df: the rows to aggregate, batch or streaming.
        by: one grouping column or column name, or an iterable of them (`[]` for none).
        time: the TIMESTAMP or TIMESTAMP_NTZ column, or its name.
        size: a positive fixed-length duration, such as `"10 seconds"`.
        aggs: a list of at least one aggregate column, such as `[F.sum("amount")]`.

    Returns:
        The windows: the `by` columns, `sliding_window`, then the aggregates.

    Raises:
        PySparkTypeError: an argument of the wrong type (`NOT_EXPECTED_TYPE`), such as a table
            name for `df`, `None` for `by`, or one aggregate or a dict for `aggs` instead of a
            list of aggregate Columns.
        PySparkValueError: `aggs` is empty (`CANNOT_BE_EMPTY`), or `size` is an empty string.
        ExtensionNotLoadedError: the session of `df` lacks the extension.

    Example:
        ```python
        sliding_window_agg(df, by=["user"], time="ts", size="10 seconds", aggs=[F.sum("amount")])
        ```
    """
    df = arguments.dataframe(df, "df")
    require_extension(df.sparkSession)
    keys = arguments.columns(by, "by")
    time = arguments.column_or_name(time, "time")
    size = arguments.duration(size, "size")
    aggregates = arguments.aggregates(aggs, "aggs")
    return df.groupBy(*keys, _window_call("sliding_window", time, size)).agg(*aggregates)


def trailing_window(
    partition_by: Union[ColumnOrName, Iterable[ColumnOrName]],
    time: ColumnOrName,
    size: "Union[str, datetime.timedelta]",
) -> WindowSpec:
    """The window of each row's trailing `size`, for `agg.over(...)`: the rows of its partition
    whose time is in `[t - size, t]`, the row's peers (rows at `t`) included.

    PySpark's `rangeBetween` takes numbers only, so the frame orders by `unix_micros(time)` and
    spans `size` in microseconds: the same rows as SQL's `RANGE BETWEEN INTERVAL <size> PRECEDING
    AND CURRENT ROW` on `time`. In a batch query the extension runs such frames in its
    TrailingWindow operator; on a streaming DataFrame with a watermark on `time`, in the Append
    mode, in its StreamingTrailingWindow operator, each row emitted once the watermark passes its
    time (docs/trailing-windows.md). It is plain PySpark, so it works on Spark Connect too.

    Args:
        partition_by: one column or column name, or an iterable of them (`[]` for none).
        time: a TIMESTAMP column, or its name (a TIMESTAMP_NTZ too from Spark 4.0, in batch;
            on Spark 3.5, write a TIMESTAMP_NTZ frame in SQL).
        size: a fixed-length duration, as every duration of the extension is written
            (docs/user-guide.md, "Durations"): `"10 minutes"`, `"1 hour 30 minutes"`, `"30s"`,
            `"5min"`, `"500ms"`, or a `datetime.timedelta` (a day is 24 hours).

    Returns:
        A WindowSpec, such as `F.count("*").over(trailing_window("card", "ts", "10 minutes"))`.

    Raises:
        PySparkValueError: `size` is not a fixed-length duration (`VALUE_NOT_ALLOWED`).
        AnalysisException: when the query is defined, `time` is of another type, such as a
            STRING (`WINDOW_TRAILING_TIME_COLUMN`, which says what to cast); or, on a stream,
            the aggregate over the frame is a pandas or Python one
            (`WINDOW_STREAMING_TRAILING_PYTHON_AGGREGATE`).
    """
    keys = arguments.columns(partition_by, "partition_by")
    time = arguments.column_or_name(time, "time")
    span = _duration.micros(size, "size")
    order = F.unix_micros(F.col(time) if isinstance(time, str) else time)
    return Window.partitionBy(*keys).orderBy(order).rangeBetween(-span, Window.currentRow)
