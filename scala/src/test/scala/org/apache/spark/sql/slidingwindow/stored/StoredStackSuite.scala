package org.apache.spark.sql.slidingwindow.stored

import org.apache.spark.sql.slidingwindow.state.{CompactReader, CompactWriter}
import scala.collection.mutable
import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.slidingwindow.aggregation.PartialFifo
import org.apache.spark.sql.types.{DataType, LongType, StringType}
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

/**
 * The stacks of streaming trailing windows' frames in their state against plain models, with
 * their chunks in a map standing for the state store: random pushes, pops and clears, each stack
 * written into a Frames row and reopened from it at random (a micro-batch ends), chunks of 1 to 5
 * elements (and another size at each reopening); every chunk a stack no longer holds is gone from
 * the store. The FIFO of a frame's
 * waiting partials over two of them, the same way.
 */
class StoredStackSuite extends AnyFunSuite {
  private val types = Array[DataType](LongType, StringType)
  private val project = UnsafeProjection.create(types)
  private val group = {
    val row = new UnsafeRow(1)
    row.pointTo(new Array[Byte](16), 16)
    row.setLong(0, 7L)
    row
  }

  /** A row of variable size: (n, "x" * (n % 23)), through a reused projection as callers do. */
  private def row(n: Long): InternalRow = project(InternalRow(n, UTF8String.fromString("x" * (n % 23).toInt)))

  private final class MapChunks extends StoredStack.Chunks {
    val stored = mutable.HashMap.empty[(Int, Int), Array[Byte]]
    override def put(g: UnsafeRow, stack: Int, chunk: Int, bytes: Array[Byte], length: Int): Unit = {
      assertResult(group)(g)
      assert(!stored.contains((stack, chunk)), s"chunk $chunk of stack $stack written twice")
      stored((stack, chunk)) = java.util.Arrays.copyOf(bytes, length)
    }
    override def take(g: UnsafeRow, stack: Int, chunk: Int): Array[Byte] =
      stored.remove((stack, chunk)).getOrElse(throw new AssertionError(s"chunk $chunk of stack $stack missing"))
  }

  /** A new stack `id` of the group, empty, as a group without a Frames row opens it. */
  private def emptyStack(chunks: MapChunks, capacity: Int, latest: StoredStack.Latest, id: Int): StoredStack = {
    val s = new StoredStack(chunks, 2, capacity, latest)
    s.open(group, id, 0, null, 0L, 0)
    s
  }

  /** Writes a stack as a Frames row does, and opens `into` from those bytes. */
  private def reopen(s: StoredStack, into: StoredStack, id: Int): Unit = {
    val out = new CompactWriter
    s.write(out)
    val bytes = out.result(0)
    val in = new CompactReader(bytes, Platform.BYTE_ARRAY_OFFSET)
    val chunkCount = in.varint().toInt
    val length = in.varint().toInt
    into.open(group, id, chunkCount, bytes, in.at, length)
  }

  private def checkTop(s: StoredStack, model: List[(Long, Long)], context: String): Unit = {
    assertResult(model.isEmpty, context)(s.isEmpty)
    model.headOption.foreach { case (t, n) =>
      assertResult(t, context)(s.topTime)
      assertResult(n, context)(s.top.getLong(0))
      assertResult("x" * (n % 23).toInt, context)(s.top.getUTF8String(1).toString)
    }
  }

  test("random pushes pops and reopens") {
    val rnd = new Random(23)
    for (sequence <- 0 until 200) {
      val capacity = 1 + rnd.nextInt(5)
      val chunks = new MapChunks
      val latest = new StoredStack.Latest
      var s = emptyStack(chunks, capacity, latest, 3)
      var model = List.empty[(Long, Long)]
      for (op <- 0 until 200) {
        val context = s"sequence $sequence (chunks of $capacity), op $op"
        rnd.nextInt(10) match {
          case 0 | 1 | 2 | 3 | 4 =>
            val n = rnd.nextInt(1000).toLong
            s.push(op, row(n))
            model = (op.toLong, n) :: model
            assertResult(op.toLong, context)(latest.time)
          case 5 =>
            val next = new StoredStack(chunks, 2, capacity, latest)
            reopen(s, next, 3)
            s = next
          case _ =>
            if (model.nonEmpty) { s.pop(); model = model.tail }
        }
        checkTop(s, model, context)
        // The store holds the chunks below the tail, no more: every element lives once.
        assert(chunks.stored.size * capacity <= model.size, context)
        assert(model.size - chunks.stored.size * capacity <= capacity, context)
      }
      while (model.nonEmpty) { s.pop(); model = model.tail }
      assert(chunks.stored.isEmpty, "every chunk read back and removed")
    }
  }

  test("reopens with another chunk size") {
    val rnd = new Random(31)
    for (sequence <- 0 until 50) {
      val chunks = new MapChunks
      val latest = new StoredStack.Latest
      var s = emptyStack(chunks, 1 + rnd.nextInt(6), latest, 1)
      var model = List.empty[(Long, Long)]
      for (op <- 0 until 150) {
        rnd.nextInt(4) match {
          case 0 | 1 =>
            s.push(op, row(op))
            model = (op.toLong, op.toLong) :: model
          case 2 =>
            val next = new StoredStack(chunks, 2, 1 + rnd.nextInt(6), latest)
            reopen(s, next, 1)
            s = next
          case _ =>
            if (model.nonEmpty) { s.pop(); model = model.tail }
        }
        checkTop(s, model, s"sequence $sequence, op $op")
      }
      while (model.nonEmpty) { s.pop(); model = model.tail }
      assert(chunks.stored.isEmpty, "every chunk read back and removed")
    }
  }

  test("FIFO of two stacks against a queue") {
    val rnd = new Random(5)
    for (sequence <- 0 until 100) {
      val capacity = 1 + rnd.nextInt(4)
      val chunks = new MapChunks
      val latest = new StoredStack.Latest
      def stacks(): (StoredStack, StoredStack) =
        (new StoredStack(chunks, 2, capacity, latest), new StoredStack(chunks, 2, capacity, latest))
      var in = emptyStack(chunks, capacity, latest, 2)
      var out = emptyStack(chunks, capacity, latest, 3)
      var fifo = new PartialFifo(in, out)
      val model = mutable.Queue.empty[(Long, Long)]
      for (op <- 0 until 200) {
        val context = s"sequence $sequence (chunks of $capacity), op $op"
        rnd.nextInt(8) match {
          case 0 | 1 | 2 | 3 =>
            val n = rnd.nextInt(1000).toLong
            fifo.add(op, row(n))
            model.enqueue((op.toLong, n))
          case 4 =>
            val (in2, out2) = stacks()
            reopen(in, in2, 2)
            reopen(out, out2, 3)
            in = in2
            out = out2
            fifo = new PartialFifo(in, out)
          case _ =>
            if (model.nonEmpty) { fifo.removeFirst(); model.dequeue() }
        }
        assertResult(model.isEmpty, context)(fifo.isEmpty)
        model.headOption.foreach { case (t, n) =>
          assertResult(t, context)(fifo.firstTime)
          assertResult(n, context)(fifo.first.getLong(0))
        }
      }
    }
  }
}
