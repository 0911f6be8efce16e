import sbt._

/**
 * The Spark versions the jar is built for, one build each from the same sources (as Delta Lake's
 * project/CrossSparkVersions.scala): `sbt -DsparkVersion=3.5 package`. The offline build
 * (buildtools/scala_build.py, buildtools/spark_env.py) uses the same versions, Scala, Java
 * targets and shim folders.
 */
case class SparkVersionSpec(fullVersion: String, scalaVersion: String, javaRelease: String,
                            mavenVersion: Option[String] = None) {
  def minor: String = fullVersion.split('.').take(2).mkString(".")
  def scalaBinary: String = scalaVersion.split('.').take(2).mkString(".")

  /** scala-shims/spark-<a> and spark-<a>-<b> whose range holds this version. */
  def shimFolders(shims: File): Seq[File] = {
    def key(v: String) = v.split('.').map(_.toInt) match { case Array(a, b) => a * 100 + b }
    Option(shims.listFiles).toSeq.flatten.filter { dir =>
      dir.getName.stripPrefix("spark-").split('-') match {
        case Array(a) => key(a) == key(minor)
        case Array(a, b) => key(a) <= key(minor) && key(minor) <= key(b)
        case _ => false
      }
    }.sortBy(_.getName)
  }
}

object CrossSparkVersions {
  val all: Seq[SparkVersionSpec] = Seq(
    // mavenVersion: the newest patch of the minor version whose
    // spark-sql and test jars the Maven repository serves (the
    // tested pyspark's own patch is missing there for 4.0-4.3, and 4.3 has none at all).
    SparkVersionSpec("3.5.9", "2.12.18", "8", Some("3.5.9")),
    SparkVersionSpec("4.0.5", "2.13.16", "17", Some("4.0.4")),
    SparkVersionSpec("4.1.4", "2.13.17", "17", Some("4.1.3")),
    SparkVersionSpec("4.2.1", "2.13.18", "17", Some("4.2.0")),
    SparkVersionSpec("4.3.0", "2.13.18", "17", None))

  /** -DsparkVersion=3.5 (or 3.5.9); 4.3 by default. */
  def selected: SparkVersionSpec = {
    val wanted = sys.props.getOrElse("sparkVersion", "4.3")
    all.find(s => s.fullVersion == wanted || s.minor == wanted).getOrElse(
      sys.error(s"sparkVersion=$wanted: one of ${all.map(_.minor).mkString(", ")}"))
  }
}
