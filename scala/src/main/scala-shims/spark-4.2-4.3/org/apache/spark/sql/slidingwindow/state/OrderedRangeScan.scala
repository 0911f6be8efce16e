package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.{StateStore, TimestampAsPostfixKeyStateEncoderSpec}
import org.apache.spark.sql.types.StructType

/**
 * Range scans of keys ordered by their last column (a time) within the others, on Spark 4.2 and
 * later (RocksDB): a group's rows between two times are read with one seek.
 */
object OrderedRangeScan {
  val supported = true

  def keyEncoding(schema: StructType): StateStoreApi.KeyEncoding = TimestampAsPostfixKeyStateEncoderSpec(schema)

  /** The rows with `start <= key < end`. */
  def scan(store: StateStore, start: UnsafeRow, end: UnsafeRow, family: String): StateStoreRows = {
    val rows = store.rangeScan(Some(start), Some(end), family)
    StateStoreRows(rows, () => rows.close())
  }
}
