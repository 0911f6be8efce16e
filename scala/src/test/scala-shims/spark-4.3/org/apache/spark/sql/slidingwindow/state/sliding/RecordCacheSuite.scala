package org.apache.spark.sql.slidingwindow.state
package sliding

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.InternalRow

/**
 * The records an executor keeps between micro-batches ([[RecordCache]]), on a real RocksDB
 * store: a micro-batch reads the records the one before it committed from memory, and from the
 * store whenever the version it opened is not the one those records are of (another attempt, a
 * rerun of a micro-batch, a task that failed), or the cache is off or outgrown.
 */
class RecordCacheSuite extends AnyFunSuite {
  import RocksDBTestStore.{codec, group, layout, limits}

  private def newStore(cacheBytes: Long) = new RocksDBTestStore(layout, limits, cacheBytes)

  /** Sets each group's QueueBack row to the count `n`. */
  private def write(state: WindowState, groups: Seq[Long], n: Long): Unit = groups.foreach { k =>
    val g = group(k)
    state.open(g)
    state.rows.put(g, StateRowKind.QueueBack, 0L, codec.queueBackValue(InternalRow(n), k, None))
    state.close()
  }

  /** Each group's count, as its QueueBack row holds it (None: no record). */
  private def read(state: WindowState, groups: Seq[Long]): Seq[Option[Long]] = groups.map { k =>
    val g = group(k)
    state.open(g)
    val back = Option(state.rows.get(g, StateRowKind.QueueBack, 0L)).map(m => codec.buffer(m).getLong(0))
    state.close()
    back
  }

  private val groups = 0L until 20L

  /**
   * Every group's count set to 1 in version 1, what `between` does, then the next micro-batch
   * from version 1 reads the counts back: its state, once it checked that they are all 1.
   */
  private def nextMicroBatch(cacheBytes: Long, between: RocksDBTestStore => Unit = _ => ()): StateMetrics = {
    val store = newStore(cacheBytes)
    try {
      store.batch(0)(write(_, groups, 1))
      between(store)
      val (counts, state) = store.batch(1)(read(_, groups))
      assertResult(groups.map(_ => Some(1L)))(counts)
      state
    } finally store.close()
  }

  test("a micro-batch reads the records the one before committed from memory") {
    val state = nextMicroBatch(cacheBytes = -1)
    assertResult(0L, "every record read came from memory")(state.rowsRead)
    assertResult(groups.size.toLong)(state.recordsFromCache)
  }

  test("without the cache every record is read from the store") {
    assertResult(groups.size.toLong)(nextMicroBatch(cacheBytes = 0).rowsRead)
  }

  test("a rerun of a micro-batch reads the version it opened") {
    val store = newStore(cacheBytes = -1)
    try {
      store.batch(0)(write(_, groups, 1)) // version 1: counts 1
      store.batch(1)(write(_, groups, 2)) // version 2: counts 2, cached
      // The micro-batch that made version 2 runs again (a restart before its commit was logged):
      // the records cached are version 2's, not version 1's.
      val (counts, state) = store.batch(1)(read(_, groups))
      assertResult(groups.map(_ => Some(1L)))(counts)
      assertResult(groups.size.toLong)(state.rowsRead)
      // It wrote nothing, and committed version 2 again with its own records: cached again.
      val (again, next) = store.batch(2)(read(_, groups))
      assertResult(groups.map(_ => Some(1L)))(again)
      assertResult(0L)(next.rowsRead)
    } finally store.close()
  }

  test("a task that fails drops the records it took") {
    val state = nextMicroBatch(cacheBytes = -1, between = _.batch(1, fail = true)(write(_, groups, 2)))
    assertResult(groups.size.toLong)(state.rowsRead)
  }

  test("records removed are removed from the cache") {
    val store = newStore(cacheBytes = -1)
    try {
      store.batch(0)(write(_, groups, 1))
      store.batch(1) { state =>
        groups.filter(_ % 2 == 0).foreach { k =>
          val g = group(k)
          state.open(g)
          state.rows.remove(g, StateRowKind.QueueBack, 0L)
          state.close()
        }
      }
      val (counts, state) = store.batch(2)(read(_, groups))
      assertResult(groups.map(k => if (k % 2 == 0) None else Some(1L)))(counts)
      // The odd groups from memory; the even ones are gone from both, and are looked up in the store.
      assertResult(0L)(state.rowsRead)
    } finally store.close()
  }

  test("a cache outgrown stops caching and reads the store") { // room for a few records of the 20
    assertResult(groups.size.toLong)(nextMicroBatch(cacheBytes = 1000).rowsRead)
  }

  test("the executor's records stay within the bound") {
    val first = newStore(cacheBytes = -1)
    val before = RecordCache.publishedBytesForTests
    first.batch(0)(write(_, groups, 1))
    val bytes = RecordCache.publishedBytesForTests - before // one partition's records
    assert(bytes > 0)
    val bound = bytes * 5 / 2
    val others = (0 until 3).map(_ => newStore(cacheBytes = bound))
    try {
      others.foreach(_.batch(0)(write(_, groups, 1)))
      assert(RecordCache.publishedBytesForTests <= bound)
      // The partitions published last are still cached; the first ones made room for them.
      val (_, last) = others.last.batch(1)(read(_, groups))
      assertResult(0L)(last.rowsRead)
      val (_, firstAgain) = first.batch(1)(read(_, groups))
      assertResult(groups.size.toLong)(firstAgain.rowsRead)
    } finally (first +: others).foreach(_.close())
  }
}
