package org.apache.spark.sql.slidingwindow.state
package sliding

import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * A set of groups (their UnsafeRow keys) for one micro-batch, such as the groups that `due` passes
 * over: open addressing on the rows' hash codes, kept beside them in a primitive array, so that
 * a lookup compares ints and touches one row only when they match. A micro-batch adds one row
 * per group it ingests; a general hash set of nodes cost as much as the state store's reads.
 */
private[state] final class GroupSet {
  private var hashes = new Array[Int](1024)
  private var rows = new Array[UnsafeRow](1024)
  private var size = 0

  /** Adds a row (kept as it is: the caller hands over a copy); returns whether it was new. */
  def add(row: UnsafeRow): Boolean = {
    if (2 * (size + 1) > rows.length) grow()
    val added = insert(row, row.hashCode, hashes, rows)
    if (added) size += 1
    added
  }

  def contains(row: UnsafeRow): Boolean = rows(slot(row, row.hashCode, hashes, rows)) != null

  def isEmpty: Boolean = size == 0

  /** The number of rows in the set. */
  def count: Int = size

  /** Where `row`, of hash code `h`, is in the tables, or the free slot it would take. */
  private def slot(row: UnsafeRow, h: Int, hashes: Array[Int], rows: Array[UnsafeRow]): Int = {
    val mask = rows.length - 1
    var i = (h ^ (h >>> 16)) & mask
    while (rows(i) != null && !(hashes(i) == h && rows(i) == row)) i = (i + 1) & mask
    i
  }

  private def insert(row: UnsafeRow, h: Int, hashes: Array[Int], rows: Array[UnsafeRow]): Boolean = {
    val i = slot(row, h, hashes, rows)
    val free = rows(i) == null
    if (free) {
      hashes(i) = h
      rows(i) = row
    }
    free
  }

  private def grow(): Unit = {
    val (oldHashes, oldRows) = (hashes, rows)
    hashes = new Array[Int](2 * oldRows.length)
    rows = new Array[UnsafeRow](2 * oldRows.length)
    var i = 0
    while (i < oldRows.length) {
      if (oldRows(i) != null) insert(oldRows(i), oldHashes(i), hashes, rows)
      i += 1
    }
  }
}
