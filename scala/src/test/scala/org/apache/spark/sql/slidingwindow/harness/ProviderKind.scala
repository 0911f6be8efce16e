package org.apache.spark.sql.slidingwindow.harness

import org.apache.spark.sql.execution.streaming.state.{HDFSBackedStateStoreProvider, RocksDBStateStoreProvider, StateStoreProvider}
import org.apache.spark.sql.slidingwindow.state.{OrderedRangeScan, StateArrangement}

/**
 * One of Spark's two state store providers, and the arrangements of an operator's state a query
 * can have on it here ([[StateArrangement]]): HDFS's, scanned; RocksDB's, scanned (a checkpoint
 * started on Spark 3.5), with a time index where this Spark has column families, and with rows
 * ordered by time where it also has ordered range scans.
 */
sealed abstract class ProviderKind(val name: String) {
  def newProvider(): StateStoreProvider
  def arrangements: Seq[StateArrangement]
  override def toString: String = name
}

object ProviderKind {
  private val scan = StateArrangement(timeIndex = false, orderedRows = false)

  case object Hdfs extends ProviderKind("HDFS") {
    override def newProvider(): StateStoreProvider = new HDFSBackedStateStoreProvider
    override def arrangements: Seq[StateArrangement] = Seq(scan)
  }

  case object RocksDb extends ProviderKind("RocksDB") {
    override def newProvider(): StateStoreProvider = new RocksDBStateStoreProvider
    override def arrangements: Seq[StateArrangement] =
      Seq(scan) ++
        (if (ProviderInit.columnFamilies) Seq(StateArrangement(timeIndex = true, orderedRows = false)) else Nil) ++
        (if (ProviderInit.columnFamilies && OrderedRangeScan.supported) Seq(StateArrangement(timeIndex = true, orderedRows = true)) else Nil)
  }

  val all: Seq[ProviderKind] = Seq(Hdfs, RocksDb)
}
