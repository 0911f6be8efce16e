// sbt build of the Scala core, for machines that can reach Maven Central.
//
// The offline build used on this project's machines is `pip install .` (or `pip install -e .`):
// buildtools/scala_build.py compiles scala/src/main with the Scala compiler shipped in pyspark's
// jars folder (no Maven repository needed) and bundles the jar into the Python package. Both builds
// compile the same sources with the same Scala (2.13.18), Spark (4.3.0) and options, and produce
// the same jar: the classes, the resources of scala/src/main/resources and
// sliding-window-agg.properties. Only the file name differs
// (sbt: target/scala-2.13/sliding-window-agg_2.13-<version>.jar).
//
//   sbt package   # the jar
//   sbt test      # the JUnit suites under scala/src/test/scala
//
// The jar has no dependencies of its own (Spark is provided at run time), so no assembly is needed.

// Nothing is published yet; the group id is a placeholder.
ThisBuild / organization := "io.github.slidingwindowagg"
// The version is written once, in python/sliding_window_agg/VERSION (pyproject.toml, the Python
// package and buildtools/scala_build.py read it too).
ThisBuild / version      := IO.read(file("python/sliding_window_agg/VERSION")).trim
// The Scala library pyspark 4.3.0 ships (pyspark/jars/scala-library-2.13.18.jar).
ThisBuild / scalaVersion := "2.13.18"

val sparkVersion = "4.3.0"

lazy val root = (project in file("."))
  .settings(
    name := "sliding-window-agg",

    Compile / scalaSource := baseDirectory.value / "scala" / "src" / "main" / "scala",
    Test / scalaSource    := baseDirectory.value / "scala" / "src" / "test" / "scala",
    // The error conditions (error/sliding-window-error-conditions.json), packaged as they are.
    Compile / resourceDirectory := baseDirectory.value / "scala" / "src" / "main" / "resources",

    libraryDependencies ++= Seq(
      // Provided: on the Compile and Test classpaths, not a dependency of the published jar.
      "org.apache.spark" %% "spark-sql"       % sparkVersion % Provided,
      "junit"            %  "junit"           % "4.13.2"     % Test,
      "com.github.sbt"   %  "junit-interface" % "0.13.3"     % Test
    ),

    // Same options as buildtools/scala_build.py.
    scalacOptions ++= Seq("-deprecation", "-feature", "-release", "17", "-encoding", "UTF-8"),
    javacOptions  ++= Seq("--release", "17"),

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
    Test / parallelExecution := false,
    Test / testOptions += Tests.Argument(TestFrameworks.JUnit, "-v", "-a")
  )
