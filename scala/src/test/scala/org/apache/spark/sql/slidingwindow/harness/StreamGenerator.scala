package org.apache.spark.sql.slidingwindow.harness

import scala.collection.mutable
import scala.util.Random

/**
 * Random streams of one partition ([[HarnessStream]]), reproducible from their seed, with what
 * breaks streaming operators: rows out of order within a disorder bound, late rows (at or before
 * the watermark; some exactly at the micro-batch's late-rows watermark or 1 µs either side, near
 * time zero before the first watermark), several groups and a null key, groups idle for a few
 * micro-batches, equal times, rows exactly a window size (or lag) from an earlier row and 1 µs
 * either side, rows on a window's alignment, null times and values, micro-batches without rows,
 * watermark jumps (as an idle clock makes), and a last micro-batch whose watermark passes every
 * row, after which the state must be drained. Between micro-batches: restarts (with other settings) and crashes.
 *
 * The eviction watermark follows the rows as Spark's does: the largest time of the micro-batches
 * before, less the delay, in milliseconds, never back; the late-rows watermark of a micro-batch
 * is the eviction watermark of the one before.
 */
final class StreamGenerator(shape: StreamShape) {
  def generate(seed: Long): HarnessStream = {
    val rng = new Random(seed)
    val base = 1700000000000000L + rng.nextInt(1000000000)
    var clock = base
    var maxSeen = Long.MinValue
    var eviction = 0L
    var late = 0L // the late-rows watermark of the micro-batch being generated
    var nextId = 0
    val recent = mutable.Map.empty[Option[Long], mutable.ArrayBuffer[Long]]
    val idleUntil = mutable.Map.empty[Option[Long], Int]
    val keys: IndexedSeq[Option[Long]] = (0 until shape.groups).map(g => Some(g.toLong * 7919L - 3L)) :+ None
    def pick[T](xs: scala.collection.IndexedSeq[T]): T = xs(rng.nextInt(xs.size))
    def chance(p: Double): Boolean = rng.nextDouble() < p
    def below(n: Long): Long = if (n <= 0) 0L else (rng.nextDouble() * n).toLong
    def toMillis(micros: Long): Long = Math.floorDiv(micros, 1000L) * 1000L
    val largest = shape.distances.max

    def time(k: Option[Long]): Option[Long] = {
      val seen = recent.getOrElse(k, mutable.ArrayBuffer.empty[Long])
      val roll = rng.nextDouble()
      if (roll < 0.03) None
      else if (roll < 0.18 && seen.nonEmpty) Some(pick(seen)) // an equal time
      else if (roll < 0.40 && seen.nonEmpty) { // exactly a distance away, or 1 µs either side
        Some(pick(seen) + (if (chance(0.5)) 1 else -1) * pick(shape.distances.toIndexedSeq) + pick(Vector(-1L, 0L, 1L)))
      } else if (roll < 0.46) { // on a window's alignment
        val d = pick(shape.distances.toIndexedSeq)
        Some(Math.floorDiv(clock - below(shape.disorderMicros), d) * d + pick(Vector(-1L, 0L, 1L)))
      } else if (roll < 0.49) Some(eviction - below(shape.disorderMicros)) // late, or nearly
      else if (roll < 0.51) Some(late + pick(Vector(-1L, 0L, 1L))) // at the late-rows watermark
      else Some(clock - below(shape.disorderMicros))
    }

    val batches = (0 until shape.batches).map { b =>
      late = eviction
      if (maxSeen != Long.MinValue) eviction = math.max(eviction, toMillis(maxSeen - shape.delayMicros))
      if (chance(0.08)) { // a jump, as an idle clock makes
        eviction = toMillis(eviction + below(3 * largest))
        clock = math.max(clock, eviction + below(shape.disorderMicros))
      }
      keys.foreach { k => if (chance(0.1)) idleUntil(k) = b + 2 + rng.nextInt(5) }
      val active = keys.filter(k => idleUntil.getOrElse(k, -1) <= b)
      val n = if (chance(0.15) || active.isEmpty) 0 else rng.nextInt(shape.maxRowsPerBatch + 1)
      val rows = (0 until n).map { _ =>
        val k = pick(active)
        val t = time(k)
        t.foreach { x =>
          recent.getOrElseUpdate(k, mutable.ArrayBuffer.empty) += x
          maxSeen = math.max(maxSeen, x)
        }
        nextId += 1
        InputRow(k, t, if (chance(0.05)) None else Some(rng.nextInt(100) - 20L), nextId)
      }
      clock += below(shape.stepMicros)
      MicroBatch(rows, late, eviction)
    }
    // The last micro-batch, without rows: its watermark passes every row and window.
    val drain = toMillis(math.max(maxSeen, eviction) + 3 * largest + shape.delayMicros) + 1000L
    val all = batches :+ MicroBatch(IndexedSeq.empty, eviction, drain)

    val events = (1 until all.size).flatMap { i =>
      val restart = if (chance(0.15)) Seq(StreamEvent.Restart(settings(rng, shape.settings) ++ fixedOf(seed))) else Nil
      val crash = if (chance(0.1)) Seq(StreamEvent.Crash(rng.nextInt(6))) else Nil
      if (restart.isEmpty && crash.isEmpty) None else Some(i -> (restart ++ crash))
    }.toMap
    HarnessStream(seed, all, events, settings(rng, shape.settings) ++ fixedOf(seed))
  }

  /** The settings a stream keeps for its whole life, the same at every restart. */
  private def fixedOf(seed: Long): Map[String, String] = settings(new Random(seed * 31 + 7), shape.fixed)

  /** A random part of `choices`, with random values. */
  private def settings(rng: Random, choices: Map[String, Seq[String]]): Map[String, String] =
    choices.toSeq.sortBy(_._1).flatMap { case (key, values) =>
      if (rng.nextDouble() < 0.7) Some(key -> values(rng.nextInt(values.size))) else None
    }.toMap
}
