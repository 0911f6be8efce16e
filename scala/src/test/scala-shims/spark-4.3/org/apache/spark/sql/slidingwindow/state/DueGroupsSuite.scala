package org.apache.spark.sql.slidingwindow.state

import org.junit.Assert._
import org.junit.Test

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Which groups [[WindowStateStore.due]] finds in state format 2 on a real RocksDB store, and when
 * it knows without reading the time index that there are none: every entry under the watermark
 * belongs to a group that claimed its visit at its ingestion ([[WindowStateStore.claimVisit]]),
 * as when every group receives rows in every micro-batch. Every commit here checks the count of
 * the index's entries against the index ([[RocksDBTestStore]]).
 */
class DueGroupsSuite {
  import RocksDBTestStore.{codec, group, layout, limits}
  private val groups = 0L until 20L

  /** Opens each group as an ingestion does: claims its visit under `watermark`, schedules `next`. */
  private def ingest(state: WindowStateStore, ks: Seq[Long], watermark: Long, next: Long): Unit = ks.foreach { k =>
    val g = group(k)
    state.open(g)
    state.claimVisit(g, watermark, firstNew = next)
    state.put(g, StateRowKind.Meta, 0L, codec.metaValue(InternalRow(1L), k, None))
    state.schedule(next, g)
    state.close()
  }

  /** The groups `due` returns, and the state rows it read to find them. */
  private def due(state: WindowStateStore, watermark: Long): (Seq[Long], Long) = {
    val before = state.rowsRead
    val found = state.due(watermark).map(_.getLong(0)).toList
    (found.sorted, state.rowsRead - before)
  }

  /** Version 1: every group scheduled at 10 (no watermark yet). */
  private def scheduledAt10(store: RocksDBTestStore): Unit =
    store.batch(0)(state => groups.foreach { k =>
      val g = group(k)
      state.open(g)
      state.put(g, StateRowKind.Meta, 0L, codec.metaValue(InternalRow(1L), k, None))
      state.schedule(10L, g)
      state.close()
    })

  private def withStore(f: RocksDBTestStore => Unit): Unit = {
    val store = new RocksDBTestStore(layout, limits, cacheBytes = 0)
    try f(store) finally store.close()
  }

  @Test def whenEveryGroupClaimedItsVisitTheIndexIsNotRead(): Unit = withStore { store =>
    scheduledAt10(store)
    store.batch(1, watermark = Some(20L)) { state =>
      ingest(state, groups, 20L, 30L) // each keeps its entry at 10, under the watermark
      assertEquals((Nil, 0L), due(state, 20L))
    }
    // And in the micro-batch after, from the count that one saved.
    store.batch(2, watermark = Some(40L)) { state =>
      ingest(state, groups, 40L, 50L)
      assertEquals((Nil, 0L), due(state, 40L))
    }
  }

  @Test def aGroupThatDidNotClaimItsVisitIsFound(): Unit = withStore { store =>
    scheduledAt10(store)
    store.batch(1, watermark = Some(20L)) { state =>
      ingest(state, groups.filter(_ != 7L), 20L, 30L)
      val (found, read) = due(state, 20L)
      assertEquals(Seq(7L), found)
      assertEquals("every entry read, those claimed passed over", groups.size.toLong, read)
    }
  }

  @Test def aGroupScheduledLaterIsReadAndNotFound(): Unit = withStore { store =>
    scheduledAt10(store)
    store.batch(1, watermark = Some(5L))(state => ingest(state, Seq(99L), 5L, 100L)) // entry at 100
    store.batch(2, watermark = Some(20L)) { state =>
      ingest(state, groups, 20L, 30L)
      // Group 99's entry, later than the watermark, is not claimed: the index is read, up to it.
      val (found, read) = due(state, 20L)
      assertEquals(Nil, found)
      assertEquals(groups.size.toLong, read)
    }
  }

  @Test def entriesRemovedUnclaimedCountAsGone(): Unit = withStore { store =>
    scheduledAt10(store)
    store.batch(1, watermark = Some(20L)) { state =>
      ingest(state, groups.filter(_ >= 5L), 20L, 30L)
      // Groups 0 to 4 visited without a claim (as `due` would), their entries moved to 40.
      (0L until 5L).foreach { k =>
        val g = group(k)
        state.open(g)
        state.schedule(40L, g)
        state.close()
      }
      assertEquals((Nil, 0L), due(state, 20L))
    }
  }
}
