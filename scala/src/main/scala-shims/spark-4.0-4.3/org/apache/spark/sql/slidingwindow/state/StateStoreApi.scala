package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.{KeyStateEncoderSpec, NoPrefixKeyStateEncoderSpec, PrefixKeyScanStateEncoderSpec, RangeKeyScanStateEncoderSpec, StateStore}
import org.apache.spark.sql.types.StructType

/**
 * The calls of Spark's [[StateStore]] the windowed state makes, on Spark 4: a store has column
 * families, each with its own key encoding.
 */
object StateStoreApi {
  type KeyEncoding = KeyStateEncoderSpec

  val hasColumnFamilies = true
  val defaultFamily: String = StateStore.DEFAULT_COL_FAMILY_NAME

  /** Keys scanned by their first `columns` columns. */
  def prefixKeys(schema: StructType, columns: Int): KeyEncoding = PrefixKeyScanStateEncoderSpec(schema, columns)
  /** Keys read by key only. */
  def plainKeys(schema: StructType): KeyEncoding = NoPrefixKeyStateEncoderSpec(schema)
  /** Keys ordered by the (non-negative or any, per Spark) numeric columns `ordinals`. */
  def orderedKeys(schema: StructType, ordinals: Seq[Int]): KeyEncoding = RangeKeyScanStateEncoderSpec(schema, ordinals)

  def createFamily(store: StateStore, name: String, keySchema: StructType, valueSchema: StructType,
      keys: KeyEncoding): Unit = store.createColFamilyIfAbsent(name, keySchema, valueSchema, keys)

  def get(store: StateStore, key: UnsafeRow, family: String): UnsafeRow = store.get(key, family)
  def put(store: StateStore, key: UnsafeRow, value: UnsafeRow, family: String): Unit = store.put(key, value, family)
  def remove(store: StateStore, key: UnsafeRow, family: String): Unit = store.remove(key, family)

  def prefixScan(store: StateStore, prefix: UnsafeRow, family: String): StateStoreRows = {
    val rows = store.prefixScan(prefix, family)
    StateStoreRows(rows, () => rows.close())
  }

  def iterator(store: StateStore, family: String): StateStoreRows = {
    val rows = store.iterator(family)
    StateStoreRows(rows, () => rows.close())
  }
}
