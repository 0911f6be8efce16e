package org.apache.spark.sql.slidingwindow.late

import java.io.{BufferedOutputStream, FileOutputStream}

import org.apache.hadoop.fs.{FileAlreadyExistsException, FSDataOutputStream, Path, RawLocalFileSystem}
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.util.Progressable

/**
 * The local file system (`file:`) as the late rows write it: Hadoop's raw local file system,
 * without checksum files, whose new files and folders take the process's default permissions.
 * Hadoop's sets a new file's or folder's permissions after creating it, which, where Hadoop has
 * no native library (pip's pyspark, most laptops), forks a `chmod` process each time: a few
 * milliseconds per file, and a late-rows table creates a few files per task and micro-batch
 * ([[LateRowsOutput]], [[LateRowsLog]]). Everything else is Hadoop's.
 */
final class LocalFileSystemWithoutChmod extends RawLocalFileSystem {
  override def create(f: Path, permission: FsPermission, overwrite: Boolean, bufferSize: Int, replication: Short,
      blockSize: Long, progress: Progressable): FSDataOutputStream = {
    val file = pathToFile(f)
    if (file.exists() && !overwrite) throw new FileAlreadyExistsException(s"File already exists: $f")
    Option(file.getParentFile).foreach(_.mkdirs())
    new FSDataOutputStream(new BufferedOutputStream(new FileOutputStream(file), bufferSize), statistics)
  }

  override def mkdirs(f: Path, permission: FsPermission): Boolean = {
    val dir = pathToFile(f)
    dir.mkdirs() || dir.isDirectory
  }
}

object LocalFileSystemWithoutChmod {
  /**
   * Makes the `file:` file system of a configuration this one (not cached: a configuration's
   * own), through its `set`: a Hadoop configuration's, or a session's (its Hadoop configurations
   * copy it).
   */
  def use(set: (String, String) => Unit): Unit = {
    set("fs.file.impl", classOf[LocalFileSystemWithoutChmod].getName)
    set("fs.file.impl.disable.cache", "true")
  }
}
