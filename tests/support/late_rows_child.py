"""A streaming trailing windows query with a late-rows table, run in its own process so that a
test can kill it (tests/test_late_rows.py).

Usage: python late_rows_child.py SOURCE CHECKPOINT WAREHOUSE OUTPUT

The trailing harness's query (trailing_harness.trailing_query) over the files of SOURCE
(streaming_harness.write_files), run `availableNow` in append mode into a Parquet file sink at
OUTPUT (exactly once, by its own log), with `spark.sql.slidingWindow.lateRows.table` naming
`late_rows` of a warehouse at WAREHOUSE. The session's in-memory catalog starts empty in every
process: the table is the one the checkpoint records.
"""
import sys

from pyspark.sql import SparkSession

import sliding_window_agg as swa


def main() -> None:
    from streaming_harness import VERIFY_ROW_COUNT_CONF, read_stream
    from trailing_harness import trailing_query

    source, checkpoint, warehouse, output = sys.argv[1:5]
    spark = (swa.configure(SparkSession.builder.master("local[2]"))
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "3")
             .config("spark.sql.warehouse.dir", warehouse)
             .config("spark.sql.slidingWindow.lateRows.table", "late_rows")
             .config(VERIFY_ROW_COUNT_CONF, "true")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    query = (trailing_query(read_stream(spark, source)).writeStream.outputMode("append").format("parquet")
             .option("path", output).option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).start())
    query.awaitTermination()
    spark.stop()


if __name__ == "__main__":
    main()
