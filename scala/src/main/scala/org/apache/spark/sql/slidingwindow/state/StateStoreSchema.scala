package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.types.StructType

/**
 * What an operator's state stores are opened with: the key and value schemas of its data, the
 * key encoding Spark's providers use for them (ordered rows or prefix scans), and the column
 * family of the data. The windowed aggregation's ([[WindowStateLayout]]) and the trailing
 * windows' ([[TrailingStateLayout]]).
 */
trait StateStoreSchema extends Serializable {
  def keySchema: StructType
  def valueSchema: StructType
  def keyEncoding(ordered: Boolean): StateStoreApi.KeyEncoding
  def dataFamily: String
}
