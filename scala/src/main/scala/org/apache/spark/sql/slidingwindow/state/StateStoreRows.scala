package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.sql.execution.streaming.state.UnsafeRowPair

/**
 * The rows of a state store scan, to close once read (Spark 4's scans hold a RocksDB iterator;
 * Spark 3.5's have nothing to close). [[StateStoreApi]] returns them.
 */
abstract class StateStoreRows extends Iterator[UnsafeRowPair] {
  def close(): Unit
}

object StateStoreRows {
  def apply(rows: Iterator[UnsafeRowPair], onClose: () => Unit): StateStoreRows = new StateStoreRows {
    override def hasNext: Boolean = rows.hasNext
    override def next(): UnsafeRowPair = rows.next()
    override def close(): Unit = onClose()
  }
}
