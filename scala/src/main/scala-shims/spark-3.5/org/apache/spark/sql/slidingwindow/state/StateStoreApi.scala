package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.types.StructType

/**
 * The calls of Spark's [[StateStore]] the windowed state makes, on Spark 3.5: a store has one
 * key space, whose keys can be prefix-scanned by their first columns, and no column families (so
 * no time index: [[StateArrangement.timeIndex]] is false).
 */
object StateStoreApi {
  /** Spark 3.5 takes the number of prefix columns of the keys (0: no prefix scans). */
  type KeyEncoding = Int

  val hasColumnFamilies = false
  val defaultFamily = "default"

  def prefixKeys(schema: StructType, columns: Int): KeyEncoding = columns
  /** Keys read by key only. */
  def plainKeys(schema: StructType): KeyEncoding = 0
  def orderedKeys(schema: StructType, ordinals: Seq[Int]): KeyEncoding = unsupported()

  def createFamily(store: StateStore, name: String, keySchema: StructType, valueSchema: StructType,
      keys: KeyEncoding): Unit = unsupported()

  def get(store: StateStore, key: UnsafeRow, family: String): UnsafeRow = { check(family); store.get(key) }
  def put(store: StateStore, key: UnsafeRow, value: UnsafeRow, family: String): Unit = {
    check(family)
    store.put(key, value)
  }
  def remove(store: StateStore, key: UnsafeRow, family: String): Unit = { check(family); store.remove(key) }

  def prefixScan(store: StateStore, prefix: UnsafeRow, family: String): StateStoreRows = {
    check(family)
    StateStoreRows(store.prefixScan(prefix), () => ())
  }

  def iterator(store: StateStore, family: String): StateStoreRows = {
    check(family)
    StateStoreRows(store.iterator(), () => ())
  }

  private def check(family: String): Unit =
    require(family == defaultFamily, s"Spark 3.5's state store has no column family $family")

  private def unsupported(): Nothing =
    throw new UnsupportedOperationException("Spark 3.5's state store has no column families")
}
