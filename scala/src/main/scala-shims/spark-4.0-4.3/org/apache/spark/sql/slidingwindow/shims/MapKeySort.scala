package org.apache.spark.sql.slidingwindow.shims

import org.apache.spark.sql.catalyst.expressions.{Expression, MapSort}

/** A map with its entries sorted by key (Spark 4.0 and later group by maps). */
object MapKeySort {
  def apply(map: Expression): Expression = MapSort(map)
}
