package org.apache.spark.sql.slidingwindow.execution

import scala.reflect.ClassTag

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.execution.streaming.state.{KeyStateEncoderSpec, StateStore, StateStoreConf, StateStoreCoordinatorRef, StateStoreRDD}
import org.apache.spark.sql.internal.SessionState
import org.apache.spark.sql.slidingwindow.shims.RelocatedStreamingClasses.StatefulOperatorStateInfo
import org.apache.spark.sql.types.StructType

/**
 * Spark's [[StateStoreRDD]], as `mapPartitionsWithStateStore` builds it, with stores opened with
 * `storeConf` instead of the session's (the operator's own store settings: [[WindowStateStoreWriter]]).
 * A store is aborted when its task ends without committing it, as there. From Spark 4.1 on, Spark's
 * two providers' stores also abort themselves (HDFS's when their task ends uncommitted, RocksDB's
 * when their task fails), and a second abort does nothing (each aborts only while updating): this
 * listener is needed on 4.0 and harmless after.
 */
private[execution] final class WindowStateStoreRDD[T: ClassTag, U: ClassTag](
    input: RDD[T],
    f: (StateStore, Iterator[T]) => Iterator[U],
    stateInfo: StatefulOperatorStateInfo,
    keySchema: StructType,
    valueSchema: StructType,
    keyEncoding: KeyStateEncoderSpec,
    sessionState: SessionState,
    coordinator: Option[StateStoreCoordinatorRef],
    useColumnFamilies: Boolean,
    override val storeConf: StateStoreConf)
  extends StateStoreRDD[T, U](input, WindowStateStoreRDD.abortingOnFailure(input.sparkContext.clean(f)),
    stateInfo.checkpointLocation, stateInfo.queryRunId, stateInfo.operatorId, stateInfo.storeVersion,
    stateInfo.stateStoreCkptIds, stateInfo.stateSchemaMetadata, keySchema, valueSchema, keyEncoding,
    sessionState, coordinator, useColumnFamilies, Map.empty[String, String], false)

private object WindowStateStoreRDD {
  def abortingOnFailure[T, U](f: (StateStore, Iterator[T]) => Iterator[U]): (StateStore, Iterator[T]) => Iterator[U] =
    (store, rows) => {
      TaskContext.get().addTaskCompletionListener[Unit](_ => if (!store.hasCommitted) store.abort())
      f(store, rows)
    }
}
