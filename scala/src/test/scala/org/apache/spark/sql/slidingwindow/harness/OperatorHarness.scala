package org.apache.spark.sql.slidingwindow.harness

import org.scalatest.Assertions._

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.InterpretedOrdering
import org.apache.spark.sql.internal.SQLConf

/**
 * Drives one operator over a [[HarnessStream]] on a real state store ([[StoreHarness]]), as Spark
 * runs one partition of a streaming query (like Flink's KeyedOneInputStreamOperatorTestHarness):
 * each micro-batch's input is sorted as the exec requires, the operator's processor runs over it
 * with the micro-batch's watermarks, its output rows are collected and its state committed.
 * Before a micro-batch, a [[StreamEvent.Restart]] reopens the store's provider with new settings,
 * and a [[StreamEvent.Crash]] runs the micro-batch once without committing (its task fails after
 * a few rows) and restarts: the micro-batch that then runs must emit the rows the failed one did
 * first. After each commit, the operator's own count of its state rows (where it keeps one) must
 * be the provider's.
 */
final class OperatorHarness[O](operator: HarnessOperator[O], kind: ProviderKind) {
  private val ordering =
    if (operator.inputOrdering.isEmpty) None else Some(new InterpretedOrdering(operator.inputOrdering, InputRow.attributes))

  def run(stream: HarnessStream): StreamRun[O] = {
    var conf = sessionConf(stream.settings)
    val store = new StoreHarness(kind, operator.schema, operator.arrangement, conf)
    try {
      val output = stream.batches.indices.map { i =>
        var failed: Option[IndexedSeq[O]] = None
        stream.eventsBefore(i).foreach {
          case StreamEvent.Restart(settings) =>
            conf = sessionConf(settings)
            store.restart(conf)
          case StreamEvent.Crash(pulled) =>
            failed = Some(store.microBatch { s =>
              operator.start(s, store.version, stream.batches(i), conf, input(stream.batches(i))).output.take(pulled).toIndexedSeq
            })
            store.restart(conf)
        }
        val emitted = store.microBatch { s =>
          val batch = operator.start(s, store.version, stream.batches(i), conf, input(stream.batches(i)))
          val rows = batch.output.toIndexedSeq
          batch.commit()
          batch.rowCount.foreach { own =>
            assertResult(s.metrics.numKeys,
              s"seed ${stream.seed}, micro-batch $i: the provider's count of the state rows, and the operator's")(
              own + operator.bookkeepingRows)
          }
          rows
        }
        failed.foreach { first =>
          assertResult(first,
            s"seed ${stream.seed}, micro-batch $i: the rows a failed attempt emitted first, and the rerun's")(
            emitted.take(first.size))
        }
        emitted
      }
      StreamRun(output, store.rowCount)
    } finally store.close()
  }

  /** The micro-batch's rows as the operator's child hands them on: sorted as the exec requires. */
  private def input(batch: MicroBatch): Iterator[InternalRow] = {
    val rows = InputRow.unsafe(batch.rows)
    ordering.map(o => rows.sorted(o)).getOrElse(rows).iterator
  }

  private def sessionConf(settings: Map[String, String]): SQLConf = {
    val conf = new SQLConf
    settings.foreach { case (k, v) => conf.setConfString(k, v) }
    conf
  }
}

/** What a stream's run emitted, micro-batch by micro-batch, and the state rows it left (the provider's count). */
final case class StreamRun[O](output: IndexedSeq[IndexedSeq[O]], stateRows: Long)
