package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.types.StructType

/**
 * Spark 3.5 to 4.1 have no range scan of keys ordered by a time within a prefix: a group's rows
 * are read by prefix scan and sorted ([[KeyedRows]]).
 */
object OrderedRangeScan {
  val supported = false

  def keyEncoding(schema: StructType): StateStoreApi.KeyEncoding = unsupported()

  def scan(store: StateStore, start: UnsafeRow, end: UnsafeRow, family: String): StateStoreRows = unsupported()

  private def unsupported(): Nothing =
    throw new UnsupportedOperationException("ordered range scans need Spark 4.2 or later")
}
