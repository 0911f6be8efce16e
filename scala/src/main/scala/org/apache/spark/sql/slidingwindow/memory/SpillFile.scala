package org.apache.spark.sql.slidingwindow.memory

import java.io.{File, RandomAccessFile}

import org.apache.spark.{SparkEnv, TaskContext}

/**
 * A temporary file of records, in Spark's local directories when running in a task (deleted when
 * the task completes), else in java.io.tmpdir. Records are appended; a FIFO reads them back in
 * order ([[read]]), a stack reads back the last one and reuses its space ([[readLast]]). When no
 * record is left to read, the file is truncated and reused from its start.
 *
 * Bytes written count as the task's disk spill (the Spark UI's "Spill (Disk)"), and in
 * [[SpillFile.bytesWritten]] for the operators' own metric.
 */
final class SpillFile {
  private var file: RandomAccessFile = _
  private var handle: File = _
  private var end = 0L
  private var live = 0

  /** Bytes in the file now. */
  def size: Long = end

  /** Appends the first `length` bytes of `bytes` as a record; returns its offset. */
  def write(bytes: Array[Byte], length: Int): Long = {
    if (file == null) open()
    val offset = end
    file.seek(offset)
    file.write(bytes, 0, length)
    end += length
    live += 1
    SpillFile.written.get()(0) += length
    Option(TaskContext.get()).foreach(_.taskMetrics().incDiskBytesSpilled(length))
    offset
  }

  def write(bytes: Array[Byte]): Long = write(bytes, bytes.length)

  /** Reads a record back (FIFO use); the record is then released. */
  def read(offset: Long, length: Int): Array[Byte] = {
    val bytes = readAt(offset, length)
    release()
    bytes
  }

  /** Reads back the last record written (stack use); its space is reused by the next write. */
  def readLast(offset: Long, length: Int): Array[Byte] = {
    assert(offset + length == end, s"record at $offset of $length bytes is not the last one")
    val bytes = readAt(offset, length)
    end = offset
    release()
    bytes
  }

  /** A record will not be read (it was dropped). */
  def release(): Unit = {
    live -= 1
    if (live == 0) reset()
  }

  /** Forgets every record. */
  def reset(): Unit = {
    live = 0
    end = 0
    if (file != null) file.setLength(0)
  }

  /** Deletes the file. */
  def close(): Unit = {
    if (file != null) {
      file.close()
      handle.delete()
      file = null
    }
    live = 0
    end = 0
  }

  private def readAt(offset: Long, length: Int): Array[Byte] = {
    val bytes = new Array[Byte](length)
    file.seek(offset)
    file.readFully(bytes)
    bytes
  }

  private def open(): Unit = {
    handle = Option(SparkEnv.get) match {
      case Some(env) => env.blockManager.diskBlockManager.createTempLocalBlock()._2
      case None =>
        val f = File.createTempFile("sliding-window-agg", ".spill")
        f.deleteOnExit()
        f
    }
    file = new RandomAccessFile(handle, "rw")
    Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => close()))
  }
}

object SpillFile {
  private val written = ThreadLocal.withInitial[Array[Long]](() => Array(0L))

  /** Bytes written to spill files by this thread so far (a task runs in one thread). */
  def bytesWritten: Long = written.get()(0)
}
