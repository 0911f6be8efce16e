package org.apache.spark.sql.slidingwindow.late

import org.apache.spark.sql.catalyst.expressions.Cast
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StringType, StructField, StructType}

/**
 * The type a late-rows table holds a column of the operator's input as, decided by one rule over
 * the column's type, when the query starts:
 *  - a type Spark's Parquet format writes (`ParquetFileFormat.supportDataType`, the check of
 *    Spark's own Parquet writes) is held as it is, and read back as it is: every atomic type of
 *    the running Spark (ANSI intervals, TIMESTAMP_NTZ, collated strings, VARIANT, TIME, ...),
 *    user-defined types by their SQL type, and structs, arrays and maps of such types;
 *  - where a part of the type is one Parquet cannot write (a calendar INTERVAL, `make_interval`;
 *    VOID on Spark 3.5), that part is held as its text, STRING (a struct, array or map keeps its
 *    shape, with STRING in that part's place), as `CAST(... AS STRING)` writes it, which a cast
 *    back (`CAST(iv AS INTERVAL)`) reads;
 *  - a part that is neither (Spark casts every type to STRING but those whose cast it refuses,
 *    such as Spark 4.3's GEOMETRY, which Parquet holds) has no type in the table: the query is
 *    refused, naming it.
 */
object LateRowsTypes {
  private val parquet = new ParquetFileFormat

  /** The table's type of a column of type `dataType`, or Left(the first part of it that has none). */
  def stored(dataType: DataType): Either[DataType, DataType] = dataType match {
    case t if parquet.supportDataType(t) => Right(t)
    case s: StructType =>
      s.fields.foldLeft[Either[DataType, Seq[StructField]]](Right(Vector.empty)) { (done, f) =>
        for (fields <- done; t <- stored(f.dataType)) yield fields :+ f.copy(dataType = t)
      }.map(fields => StructType(fields))
    case ArrayType(element, containsNull) => stored(element).map(ArrayType(_, containsNull))
    case MapType(key, value, valueContainsNull) =>
      for (k <- stored(key); v <- stored(value)) yield MapType(k, v, valueContainsNull)
    case t if Cast.canCast(t, StringType) => Right(StringType)
    case t => Left(t)
  }
}
