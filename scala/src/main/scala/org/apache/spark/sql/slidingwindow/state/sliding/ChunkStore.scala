package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore

/**
 * Where state format 2 keeps the chunks of large groups' rows ([[RecordChunks]]): a row each,
 * keyed (group, chunk kind, first time), whose value's `__record` holds a section of rows.
 */
private[state] trait ChunkStore {
  /** The value of the chunk of `kind` rows starting at `first`, or null. Valid until the next call. */
  def get(group: InternalRow, kind: StateRowKind, first: Long): UnsafeRow
  def put(group: InternalRow, kind: StateRowKind, first: Long, value: UnsafeRow): Unit
  def remove(group: InternalRow, kind: StateRowKind, first: Long): Unit
}

private[state] object ChunkStore {
  /** The chunks in the state store: `family` (`chunks` with a time index, else the default). */
  def apply(store: StateStore, codec: WindowStateCodec, family: String): ChunkStore = new ChunkStore {
    override def get(group: InternalRow, kind: StateRowKind, first: Long): UnsafeRow =
      StateStoreApi.get(store, codec.key(group, StateRowKind.chunkOf(kind), first), family)
    override def put(group: InternalRow, kind: StateRowKind, first: Long, value: UnsafeRow): Unit =
      StateStoreApi.put(store, codec.key(group, StateRowKind.chunkOf(kind), first), value, family)
    override def remove(group: InternalRow, kind: StateRowKind, first: Long): Unit =
      StateStoreApi.remove(store, codec.key(group, StateRowKind.chunkOf(kind), first), family)
  }
}
