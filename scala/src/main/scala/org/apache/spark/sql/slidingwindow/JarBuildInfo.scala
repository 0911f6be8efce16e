package org.apache.spark.sql.slidingwindow

import java.net.URL
import java.util.Properties

import scala.util.Try

import org.apache.spark.sql.slidingwindow.errors.WindowErrors

/**
 * What the build recorded in this jar, `sliding-window-agg.properties`: the Spark version it was
 * compiled against (`spark.version`) and the package's version (`version`). The Python package
 * reads the same entry (`sliding_window_agg._jar.build_info`).
 *
 * The extension uses Spark's internal APIs, which change between minor versions, so a jar given
 * to another Spark minor version (with `--jars`, where no Python check runs) fails on the first
 * class or method that Spark lacks, far from the cause: [[checkRunningSpark]] says it at once.
 */
object JarBuildInfo {
  val Entry = "sliding-window-agg.properties"

  /** The properties of the jar this class was loaded from (empty when it has none). */
  lazy val properties: Properties = {
    val properties = new Properties()
    val ownJar = Try {
      val location = classOf[SlidingWindowExtensions].getProtectionDomain.getCodeSource.getLocation
      new URL(s"jar:$location!/$Entry").openStream()
    }.toOption
    ownJar.orElse(Option(classOf[SlidingWindowExtensions].getResourceAsStream("/" + Entry))).foreach { in =>
      try properties.load(in) finally in.close()
    }
    properties
  }

  /** The Spark version the jar was compiled against, if the build recorded it. */
  def builtForSpark: Option[String] = Option(properties.getProperty("spark.version"))

  private def minor(version: String): String = version.split("\\.").take(2).mkString(".")

  /**
   * Fails with WINDOW_JAR_FOR_ANOTHER_SPARK when the jar was compiled against another Spark
   * minor version than `running` (another patch release of the same minor version is fine).
   */
  def checkRunningSpark(running: String = org.apache.spark.SPARK_VERSION): Unit =
    builtForSpark.filter(built => minor(built) != minor(running)).foreach { built =>
      WindowErrors.jarForAnotherSpark(built, running, minor(running))
    }
}
