package org.apache.spark.sql.slidingwindow.harness

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{LocalFileSystem, Path, RawLocalFileSystem}
import org.apache.hadoop.fs.permission.FsPermission

/**
 * The local file system the harness's checkpoints are written to: Hadoop's, but for the file
 * permissions, which Hadoop sets by running a shell command per file without its native library
 * (a process forked per delta file written, most of a micro-batch's time), and which a temporary
 * checkpoint does not need.
 */
final class HarnessFileSystem extends LocalFileSystem(new HarnessFileSystem.Raw)

object HarnessFileSystem {
  final class Raw extends RawLocalFileSystem {
    override def setPermission(p: Path, permission: FsPermission): Unit = ()
    override def setOwner(p: Path, username: String, groupname: String): Unit = ()
  }

  /**
   * A Hadoop configuration for a store of the harness: its files on [[HarnessFileSystem]], written
   * through a FileSystem (Spark's FileContext-based manager asks for links with a shell command
   * per rename).
   */
  def hadoopConf(): Configuration = new Configuration(base)

  // Read once: a new Configuration parses Hadoop's XML resources again.
  private lazy val base: Configuration = {
    val conf = new Configuration
    conf.set("fs.file.impl", classOf[HarnessFileSystem].getName)
    conf.setBoolean("fs.file.impl.disable.cache", true)
    conf.set("spark.sql.streaming.checkpointFileManagerClass", fileSystemManager)
    conf
  }

  // Spark 4 moved it to a package of its own.
  private lazy val fileSystemManager: String =
    Seq("org.apache.spark.sql.execution.streaming.checkpointing.FileSystemBasedCheckpointFileManager",
      "org.apache.spark.sql.execution.streaming.FileSystemBasedCheckpointFileManager").find { name =>
      try { Class.forName(name); true } catch { case _: ClassNotFoundException => false }
    }.get
}
