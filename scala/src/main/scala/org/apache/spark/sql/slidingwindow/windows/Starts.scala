package org.apache.spark.sql.slidingwindow.windows

/** Window starts in ascending order, consumed from the head. */
trait Starts {
  def isEmpty: Boolean
  def head: Long
  def removeHead(): Long
}

object Starts {
  val empty: Starts = new Starts {
    override def isEmpty: Boolean = true
    override def head: Long = throw new NoSuchElementException("no window starts")
    override def removeHead(): Long = head
  }
}
