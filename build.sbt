// sbt build of the Scala core. `python3 buildtools/sbt.py <sbt arguments>` runs it on a machine
// with only a JDK and Maven: it installs sbt from the machine's Maven repository and points sbt at
// that repository alone.
//
// The Python package builds the same jar without a Maven repository (`pip install .`):
// buildtools/scala_build.py compiles scala/src/main with the Scala compiler shipped in pyspark's
// jars folder. Both builds compile the same sources with the same Scala, Spark and options, and
// produce the same jar (tests/test_scala_unit.py compares them): the classes, the resources of
// scala/src/main/resources and sliding-window-agg.properties, named
// sliding-window-agg_<spark minor>_<scala binary>.jar, in target/.
//
//   python3 buildtools/sbt.py package   # the jar
//   python3 buildtools/sbt.py test      # the ScalaTest suites under scala/src/test/scala
//   ... -Decosystem test                # and the StreamTest suites (not on Spark 4.3; below)
//
// The jar has no dependencies of its own (Spark is provided at run time), so no assembly is needed.

// Nothing is published yet; the group id is a placeholder.
ThisBuild / organization := "io.github.slidingwindowagg"
// The version is written once, in python/sliding_window_agg/VERSION (pyproject.toml, the Python
// package and buildtools/scala_build.py read it too).
ThisBuild / version      := IO.read(file("python/sliding_window_agg/VERSION")).trim
// One build per Spark version from the same sources (project/CrossSparkVersions.scala):
//   sbt -DsparkVersion=3.5 package    # 3.5, 4.0, 4.1, 4.2 or 4.3 (the default)
// Each uses the Scala its pyspark ships and the shim folders scala/src/main/scala-shims/spark-*
// whose range holds the version.
val spark = CrossSparkVersions.selected
ThisBuild / scalaVersion := spark.scalaVersion

val sparkVersion = spark.fullVersion

// Where Spark's jars come from:
//   -DsparkJars=<a Spark jars folder> (pyspark's), or SWA_SPARK_JARS: those jars, as
//     buildtools/scala_build.py compiles against (every supported version);
//   otherwise spark-sql <mavenVersion> from the Maven repository (the newest patch served there).
val sparkJarsFolder: Option[File] =
  sys.props.get("sparkJars").orElse(sys.env.get("SWA_SPARK_JARS")).map(file)
val mavenSpark: Option[String] = spark.mavenVersion
// The artifacts of that folder (spark-core_2.13, scala-library, ...): the test classpath takes them
// from there alone, not in the versions the Maven dependencies below would pull.
val sparkJarArtifacts: Set[String] = sparkJarsFolder.toSeq.flatMap(d => Option(d.list).toSeq.flatten)
  .filter(_.endsWith(".jar")).map(artifactOf).toSet
def artifactOf(jar: String): String = jar.replaceFirst("""-\d[\w.\-]*\.jar$""", "")

// -Decosystem: the Scala suites on Spark's own test kits (Spark's StreamTest and
// SharedSparkSession: the `tests` jars of spark-core, catalyst and sql), at the minor's Maven
// patch (mavenVersion; none for Spark 4.3). The suites live in
// scala/src/ecosystem-test (scala; scala-shims/spark-* by the rule of the main shims; resources),
// compiled only with this setting:
//   python3 buildtools/sbt.py -DsparkVersion=4.2 -DsparkJars=<pyspark>/jars -Decosystem "testOnly *StreamSuite"
// The test jars come without their dependencies: Spark's own jars are on the classpath already.
lazy val ecosystemTests: Seq[Setting[_]] = if (!sys.props.contains("ecosystem")) Nil else {
  val v = mavenSpark.getOrElse(sys.error(
    s"-Decosystem: Spark $sparkVersion's test jars are not served by the Maven repository"))
  Seq(
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-core"           % v % Test classifier "tests" intransitive(),
      "org.apache.spark" %% "spark-catalyst"       % v % Test classifier "tests" intransitive(),
      "org.apache.spark" %% "spark-sql"            % v % Test classifier "tests" intransitive()),
    Test / unmanagedSourceDirectories ++= {
      val dir = baseDirectory.value / "scala" / "src" / "ecosystem-test"
      (dir / "scala") +: spark.shimFolders(dir / "scala-shims")
    },
    // Its log4j2-test.properties: errors only.
    Test / unmanagedResourceDirectories += baseDirectory.value / "scala" / "src" / "ecosystem-test" / "resources")
}

lazy val root = (project in file("."))
  .settings(
    name := "sliding-window-agg",
    // One target folder per Spark, so that switching -DsparkVersion does not recompile the others.
    target := baseDirectory.value / "target" / s"spark-${spark.minor}",

    Compile / scalaSource := baseDirectory.value / "scala" / "src" / "main" / "scala",
    Compile / unmanagedSourceDirectories ++=
      spark.shimFolders(baseDirectory.value / "scala" / "src" / "main" / "scala-shims"),
    // As buildtools/scala_build.py: sliding-window-agg_<spark>_<scala>.jar.
    Compile / packageBin / artifactPath :=
      baseDirectory.value / "target" / s"sliding-window-agg_${spark.minor}_${spark.scalaBinary}.jar",
    Test / scalaSource    := baseDirectory.value / "scala" / "src" / "test" / "scala",
    Test / unmanagedSourceDirectories ++=
      spark.shimFolders(baseDirectory.value / "scala" / "src" / "test" / "scala-shims"),
    // The error conditions (error/sliding-window-error-conditions.json), packaged as they are.
    Compile / resourceDirectory := baseDirectory.value / "scala" / "src" / "main" / "resources",

    libraryDependencies ++= (sparkJarsFolder match {
      case Some(_) => Nil
      case None => Seq(
        // Provided: on the Compile and Test classpaths, not a dependency of the published jar.
        "org.apache.spark" %% "spark-sql" % mavenSpark.getOrElse(sys.error(
          s"Spark $sparkVersion is not served by the Maven repository: pass -DsparkJars=<pyspark>/jars")) % Provided)
    }) ++ Seq("org.scalatest" %% "scalatest" % "3.2.19" % Test),
    Compile / unmanagedJars ++= sparkJarsFolder.toSeq.flatMap(d => (d * "*.jar").classpath),
    // Spark's jars are provided at run time: not packaged, not in the published POM.
    Test / unmanagedJars ++= sparkJarsFolder.toSeq.flatMap(d => (d * "*.jar").classpath),
    // Of the Maven jars, those the folder has not (Spark's test jars, named *-tests.jar, are kept).
    Test / managedClasspath := (Test / managedClasspath).value.filter { jar =>
      val name = jar.data.getName
      name.endsWith("-tests.jar") || !sparkJarArtifacts(artifactOf(name))
    },

    // Same options as buildtools/scala_build.py.
    // Spark 3.5 clusters may run Java 8: its jar targets Java 8 bytecode.
    scalacOptions ++= Seq("-deprecation", "-feature", "-encoding", "UTF-8", "-release", spark.javaRelease) ++
      (if (spark.javaRelease == "8") Seq("-target:jvm-1.8") else Nil),
    javacOptions  ++= Seq("--release", spark.javaRelease),

    // The file the offline build adds to the jar: the Spark version it was compiled against and
    // the package's version; and the manifest attributes it writes.
    Compile / resourceGenerators += Def.task {
      val file = (Compile / resourceManaged).value / "sliding-window-agg.properties"
      IO.write(file, s"spark.version=$sparkVersion\nversion=${version.value}\n")
      Seq(file)
    }.taskValue,
    Compile / packageBin / packageOptions += Package.ManifestAttributes(
      "Implementation-Title" -> "sliding-window-agg",
      "Implementation-Version" -> version.value,
      "Spark-Version" -> sparkVersion),

    // Spark needs these module openings on Java 17 (the same list spark-submit passes).
    Test / fork := true,
    Test / javaOptions ++= Seq(
      "-Xmx2g",
      // C1 only: the suites take a quarter less CPU (as the tests' other JVMs, tests/conftest.py).
      "-XX:TieredStopAtLevel=1",
      "-XX:+IgnoreUnrecognizedVMOptions",
      "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.net=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
      "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
      "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
      "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
      "-Djdk.reflect.useDirectMethodHandle=false",
      "-Dio.netty.tryReflectionSetAccessible=true"
    ),
    // The suites' own settings given to sbt (-Dswa.harness.streams=4, -Dswa.properties.scale=0.25,
    // -Dswa.harness.seed=S: HarnessProperty, PropertyCases), for their JVM.
    Test / javaOptions ++= sys.props.toSeq.sorted.collect { case (k, v) if k.startsWith("swa.") => s"-D$k=$v" },
    Test / parallelExecution := false,
    // Each test's name and duration as it ends, and a failure's full stack trace and message.
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oDF")
  )
  .settings(ecosystemTests: _*)
