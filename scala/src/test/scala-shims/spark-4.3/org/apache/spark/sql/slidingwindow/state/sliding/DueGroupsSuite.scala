package org.apache.spark.sql.slidingwindow.state
package sliding

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.types.{DataType, IntegerType}

/**
 * Which groups [[VisitTimers.due]] finds in state format 2 on a real RocksDB store, and when
 * it knows without reading the time index that there are none: every entry under the watermark
 * belongs to a group that claimed its visit at its ingestion ([[VisitTimers.claimVisit]]),
 * as when every group receives rows in every micro-batch. Every commit here checks the count of
 * the index's entries against the index ([[RocksDBTestStore]]).
 */
class DueGroupsSuite extends AnyFunSuite {
  import RocksDBTestStore.{codec, group, layout, limits}
  private val groups = 0L until 20L

  /** Opens each group as an ingestion does: claims its visit under the watermark, schedules `next`. */
  private def ingest(state: WindowState, ks: Seq[Long], next: Long): Unit = ks.foreach { k =>
    val g = group(k)
    state.open(g)
    state.timers.claimVisit(g, firstNew = next)
    state.rows.put(g, StateRowKind.QueueBack, 0L, codec.queueBackValue(InternalRow(1L), k, None))
    state.timers.schedule(next, g)
    state.close()
  }

  /** The groups `due` returns, and the state rows it read to find them. */
  private def due(state: WindowState): (Seq[Long], Long) = {
    val before = state.metrics.rowsRead
    val found = state.timers.due().map(_.getLong(0)).toList
    (found.sorted, state.metrics.rowsRead - before)
  }

  /** Version 1: every group scheduled at 10 (no watermark yet). */
  private def scheduledAt10(store: RocksDBTestStore): Unit =
    store.batch(0)(state => groups.foreach { k =>
      val g = group(k)
      state.open(g)
      state.rows.put(g, StateRowKind.QueueBack, 0L, codec.queueBackValue(InternalRow(1L), k, None))
      state.timers.schedule(10L, g)
      state.close()
    })

  private def withStore(f: RocksDBTestStore => Unit): Unit = {
    val store = new RocksDBTestStore(layout, limits, cacheBytes = 0)
    try f(store) finally store.close()
  }

  test("when every group claimed its visit the index is not read")(withStore { store =>
    scheduledAt10(store)
    store.batch(1, watermark = Some(20L)) { state =>
      ingest(state, groups, 30L) // each keeps its entry at 10, under the watermark
      assertResult((Nil, 0L))(due(state))
    }
    // And in the micro-batch after, from the count that one saved.
    store.batch(2, watermark = Some(40L)) { state =>
      ingest(state, groups, 50L)
      assertResult((Nil, 0L))(due(state))
    }
  })

  test("a group that did not claim its visit is found")(withStore { store =>
    scheduledAt10(store)
    store.batch(1, watermark = Some(20L)) { state =>
      ingest(state, groups.filter(_ != 7L), 30L)
      val (found, read) = due(state)
      assertResult(Seq(7L))(found)
      assertResult(groups.size.toLong, "every entry read, those claimed passed over")(read)
    }
  })

  test("a group scheduled later is read and not found")(withStore { store =>
    scheduledAt10(store)
    store.batch(1, watermark = Some(5L))(state => ingest(state, Seq(99L), 100L)) // entry at 100
    store.batch(2, watermark = Some(20L)) { state =>
      ingest(state, groups, 30L)
      // Group 99's entry, later than the watermark, is not claimed: the index is read, up to it.
      val (found, read) = due(state)
      assertResult(Nil)(found)
      assertResult(groups.size.toLong)(read)
    }
  })

  test("entries removed unclaimed count as gone")(withStore { store =>
    scheduledAt10(store)
    store.batch(1, watermark = Some(20L)) { state =>
      ingest(state, groups.filter(_ >= 5L), 30L)
      // Groups 0 to 4 visited without a claim (as `due` would), their entries moved to 40.
      (0L until 5L).foreach { k =>
        val g = group(k)
        state.open(g)
        state.timers.schedule(40L, g)
        state.close()
      }
      assertResult((Nil, 0L))(due(state))
    }
  })

  /**
   * The skip of the index read rests on its entries' count; the tests check every skip against the
   * index itself: an entry under the watermark that the count does not know of (written here
   * behind the state's back) fails the micro-batch instead of leaving its group unvisited.
   */
  test("a skip that would miss an entry fails")(withStore { store =>
    scheduledAt10(store)
    val failure = try {
      store.batch(1, watermark = Some(20L)) { state =>
        val nothing = UnsafeProjection.create(Array[DataType](IntegerType))(InternalRow(null))
        val entry = new TimeIndex(state.store, layout.indexKeySchema, new StateCounters, layout.indexFamily).key(5L, group(99L))
        StateStoreApi.put(state.store, entry, nothing, layout.indexFamily)
        ingest(state, groups, 30L)
        due(state)
      }
      None
    } catch { case e: IllegalStateException => Some(e.getMessage) }
    assert(failure.exists(_.contains("unclaimed entry under the watermark")), s"failed: $failure")
  })
}
