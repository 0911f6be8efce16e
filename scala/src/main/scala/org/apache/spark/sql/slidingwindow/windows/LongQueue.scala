package org.apache.spark.sql.slidingwindow.windows

/** A growable FIFO of primitive longs (a ring buffer), for pending window starts. */
final class LongQueue {
  private var values = new Array[Long](16)
  private var first = 0
  private var count = 0

  def isEmpty: Boolean = count == 0
  def nonEmpty: Boolean = count > 0
  def head: Long = values(first)

  def add(value: Long): Unit = {
    if (count == values.length) {
      val grown = new Array[Long](values.length * 2)
      var i = 0
      while (i < count) { grown(i) = values((first + i) % values.length); i += 1 }
      values = grown
      first = 0
    }
    values((first + count) % values.length) = value
    count += 1
  }

  def removeHead(): Long = {
    val v = values(first)
    first = (first + 1) % values.length
    count -= 1
    v
  }

  def clear(): Unit = { first = 0; count = 0 }
}
