"""Python aggregates the tests run where Spark's window functions meet the extension's."""
from __future__ import annotations


def pandas_mean(spark, registered_as: str):
    """A grouped-aggregate pandas UDF (Series to float) named `mean`, also registered for SQL as
    `registered_as`. Needs pandas and pyarrow (the callers skip without them)."""
    import pandas as pd
    from pyspark.sql.functions import pandas_udf

    def mean(v):  # type: ignore[no-untyped-def]
        return float(v.mean())

    mean.__annotations__ = {"v": pd.Series, "return": float}
    udf = pandas_udf(mean, "double")
    spark.udf.register(registered_as, udf)
    return udf
