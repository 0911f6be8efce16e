package org.apache.spark.sql.slidingwindow.shims

import org.apache.spark.sql.catalyst.expressions.Expression

/**
 * Spark 3.5 cannot group by maps (its analyzer rejects map grouping keys before the window rules
 * run) and has no MapSort: the map is left as it is.
 */
object MapKeySort {
  def apply(map: Expression): Expression = map
}
