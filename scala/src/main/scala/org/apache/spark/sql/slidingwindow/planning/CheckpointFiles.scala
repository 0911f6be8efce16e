package org.apache.spark.sql.slidingwindow.planning

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.commons.io.IOUtils
import org.apache.hadoop.fs.{FileSystem, Path}

/** The extension's own small text files in a query's checkpoint (its operator record, its clocks). */
object CheckpointFiles {
  /** The text of `file`, if it exists. */
  def read(fs: FileSystem, file: Path): Option[String] =
    if (!fs.exists(file)) None
    else {
      val in = fs.open(file)
      try Some(new String(IOUtils.toByteArray(in), UTF_8)) finally in.close()
    }

  /**
   * Writes `text` as `file`, replacing it: into a hidden file renamed over it, so that a process
   * killed meanwhile leaves the file as it was, or whole (on a file system whose rename does not
   * replace, the file is removed first: killed between, it is missing).
   */
  def write(fs: FileSystem, file: Path, text: String): Unit = {
    val temporary = new Path(file.getParent, s".${file.getName}.${java.util.UUID.randomUUID()}.tmp")
    val out = fs.create(temporary, true)
    try out.write(text.getBytes(UTF_8)) finally out.close()
    if (!fs.rename(temporary, file)) {
      fs.delete(file, false)
      if (!fs.rename(temporary, file)) throw new java.io.IOException(s"Could not rename $temporary to $file")
    }
  }
}
