package org.apache.spark.sql.slidingwindow.state

import org.apache.spark.unsafe.Platform

/**
 * The byte stream of a group's record and of its chunks ([[GroupRecord]]): longs as unsigned
 * LEB128 varints (7 bits a byte), signed ones zigzag-encoded first, and raw bytes. A record is
 * read and written whole at each visit and RocksDB's work follows its bytes, so its times are
 * written as differences, which take 4 bytes for 30 seconds in microseconds instead of 8.
 * The grammar of those bytes: docs/state-format.md, section "The record's bytes".
 */
private[slidingwindow] final class CompactWriter {
  private var bytes = new Array[Byte](256)
  private var size = 0

  def clear(): Unit = size = 0

  /** The bytes written so far. */
  def position: Int = size

  /** Forgets the bytes written after `position` (a [[position]] returned earlier). */
  def truncate(position: Int): Unit = size = position

  private def ensure(more: Int): Unit = if (size + more > bytes.length) {
    bytes = java.util.Arrays.copyOf(bytes, math.max(2 * bytes.length, size + more))
  }

  /** `n` as an unsigned varint: 1 byte below 128, at most 10. */
  def varint(n: Long): Unit = {
    if (size + 10 > bytes.length) ensure(10)
    val b = bytes
    var i = size
    var v = n
    while ((v & ~0x7FL) != 0) {
      b(i) = ((v & 0x7F) | 0x80).toByte
      i += 1
      v >>>= 7
    }
    b(i) = v.toByte
    size = i + 1
  }

  /** `n` zigzag-encoded (small magnitudes, either sign, take few bytes), as a varint. */
  def signed(n: Long): Unit = varint((n << 1) ^ (n >> 63))

  def byte(b: Int): Unit = { ensure(1); bytes(size) = b.toByte; size += 1 }

  /** `v`'s 8 bytes as they are, in the platform's byte order (as a buffer's bytes are copied). */
  def rawLong(v: Long): Unit = {
    ensure(8)
    Platform.putLong(bytes, Platform.BYTE_ARRAY_OFFSET + size, v)
    size += 8
  }

  /** `length` bytes from `base` at `offset` (an `UnsafeRow`'s, or an array's). */
  def copy(base: AnyRef, offset: Long, length: Int): Unit = {
    ensure(length)
    Platform.copyMemory(base, offset, bytes, Platform.BYTE_ARRAY_OFFSET + size, length)
    size += length
  }

  /** The bytes written, after `prefix` bytes whose contents the caller writes. */
  def result(prefix: Int): Array[Byte] = {
    val out = new Array[Byte](prefix + size)
    System.arraycopy(bytes, 0, out, prefix, size)
    out
  }
}

/** Reads what a [[CompactWriter]] wrote, from `at` in `base`. */
private[slidingwindow] final class CompactReader(val base: AnyRef, var at: Long) {
  def varint(): Long = {
    val in = base
    var i = at
    var b = Platform.getByte(in, i)
    var result = (b & 0x7FL)
    var shift = 7
    while ((b & 0x80) != 0) {
      i += 1
      b = Platform.getByte(in, i)
      result |= (b & 0x7FL) << shift
      shift += 7
    }
    at = i + 1
    result
  }

  def signed(): Long = { val v = varint(); (v >>> 1) ^ -(v & 1) }

  def byte(): Int = { val b = Platform.getByte(base, at) & 0xFF; at += 1; b }

  def skip(length: Int): Unit = at += length
}
