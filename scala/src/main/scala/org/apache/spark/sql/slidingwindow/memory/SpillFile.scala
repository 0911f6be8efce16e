package org.apache.spark.sql.slidingwindow.memory

import java.io.{File, RandomAccessFile}

import org.apache.spark.{SparkEnv, TaskContext}

/**
 * An append-only temporary file of records that a FIFO reads back in order: in Spark's local
 * directories when running in a task (deleted when the task completes), else in java.io.tmpdir.
 * When no record is left to read, the file is truncated and reused from its start.
 */
final class SpillFile {
  private var file: RandomAccessFile = _
  private var handle: File = _
  private var end = 0L
  private var live = 0

  /** Bytes in the file now. */
  def size: Long = end

  /** Appends a record; returns its offset. */
  def write(bytes: Array[Byte]): Long = {
    if (file == null) open()
    val offset = end
    file.seek(offset)
    file.write(bytes)
    end += bytes.length
    live += 1
    offset
  }

  /** Reads a record back; the record is then released. */
  def read(offset: Long, length: Int): Array[Byte] = {
    val bytes = new Array[Byte](length)
    file.seek(offset)
    file.readFully(bytes)
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
