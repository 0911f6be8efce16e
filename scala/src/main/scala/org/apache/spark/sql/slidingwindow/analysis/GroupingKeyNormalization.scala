package org.apache.spark.sql.slidingwindow.analysis

import org.apache.spark.sql.catalyst.expressions.{ArrayTransform, CreateNamedStruct, Expression, GetStructField, If, IsNull, LambdaFunction, Literal, MapFromArrays, MapKeys, MapValues, NamedLambdaVariable}
import org.apache.spark.sql.catalyst.optimizer.NormalizeFloatingNumbers
import org.apache.spark.sql.slidingwindow.shims.MapKeySort
import org.apache.spark.sql.types.{ArrayType, DataType, DoubleType, FloatType, MapType, StructType}

/**
 * Grouping keys whose equal values can differ in their bytes, made canonical, as the optimizer
 * makes the grouping keys of an `Aggregate` (not of an operator it does not know):
 *  - maps get their entries sorted by key, inside structs and arrays too, as Spark's
 *    InsertMapSortInAggregate does (its helper is private to the optimizer);
 *  - floating-point values get one zero and one NaN (NormalizeFloatingNumbers).
 * The operator then groups by bytes, like Spark's hash aggregation.
 */
object GroupingKeyNormalization {

  def needed(key: Expression): Boolean =
    hasMap(key.dataType) || hasFloatingPoint(key.dataType)

  def apply(key: Expression): Expression = {
    val sorted = if (hasMap(key.dataType)) sortMaps(key) else key
    if (hasFloatingPoint(sorted.dataType)) NormalizeFloatingNumbers.normalize(sorted)
    else sorted
  }

  private def hasMap(t: DataType): Boolean = t.existsRecursively(_.isInstanceOf[MapType])
  // What NormalizeFloatingNumbers.needNormalize says (private before Spark 4.0).
  private def hasFloatingPoint(t: DataType): Boolean =
    t.existsRecursively(d => d == FloatType || d == DoubleType)

  private def sortMaps(e: Expression): Expression = e.dataType match {
    case m: MapType =>
      val entries =
        if (hasMap(m.valueType)) MapFromArrays(MapKeys(e), sortMaps(MapValues(e))) else e
      MapKeySort(entries)
    case StructType(fields) if fields.exists(f => hasMap(f.dataType)) =>
      val struct = CreateNamedStruct(fields.toSeq.zipWithIndex.flatMap { case (f, i) =>
        Seq(Literal(f.name), sortMaps(GetStructField(e, i, Some(f.name))))
      })
      if (e.nullable) If(IsNull(e), Literal(null, struct.dataType), struct) else struct
    case ArrayType(elementType, containsNull) if hasMap(elementType) =>
      val element = NamedLambdaVariable("element", elementType, containsNull)
      ArrayTransform(e, LambdaFunction(sortMaps(element), Seq(element)))
    case _ => e
  }
}
