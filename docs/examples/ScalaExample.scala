// The Scala examples of docs/scala-reference.md, run as they are printed there.
// Compile and run it against pyspark's Spark jars and the extension's jar:
//   python docs/examples/run_scala_example.py
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.slidingwindow.api.functions._

object ScalaExample {
  def main(args: Array[String]): Unit = {
    val spark = SparkSession.builder()
      .master("local[2]")
      .config("spark.sql.extensions", "org.apache.spark.sql.slidingwindow.SlidingWindowExtensions")
      .config("spark.sql.session.timeZone", "UTC")
      .config("spark.sql.shuffle.partitions", "2")
      .config("spark.ui.showConsoleProgress", "false")
      .getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    import spark.implicits._

    // Batch: a DataFrame of events.
    val events = Seq(
      ("alice", "2024-01-01 12:00:10", 1.0), ("alice", "2024-01-01 12:00:14", 2.0),
      ("alice", "2024-01-01 12:00:17", 3.0), ("alice", "2024-01-01 12:00:25", 4.0),
      ("alice", "2024-01-01 12:00:31", 5.0)
    ).toDF("user", "ts", "amount").withColumn("ts", to_timestamp($"ts"))

    events
      .groupBy($"user", sliding_window($"ts", "10 seconds"))        // (Column, String)
      .agg(count("*").as("n"), sum($"amount").as("total"))
      .orderBy($"sliding_window.start")
      .show(truncate = false)

    events
      .groupBy(col("user"), sliding_window("ts", "10 seconds"))     // (String, String)
      .count()
      .where($"count" > 1)
      .orderBy($"sliding_window.start")
      .show(truncate = false)

    // An interval instead of a string: the SQL function, by name.
    events
      .groupBy(call_function("sliding_window", $"ts", expr("INTERVAL 10 SECONDS")))
      .count()
      .where($"count" > 2)
      .show(truncate = false)

    // Streaming: the same rows as JSON files, then a row far later that closes every window.
    val dir: Path = Files.createTempDirectory("scala-example")
    val input = dir.resolve("events")
    Files.createDirectories(input)
    Files.write(input.resolve("000.json"), // Files.write with bytes: Spark 3.5 runs on Java 8 too
      """{"user": "alice", "ts": "2024-01-01 12:00:10", "amount": 1.0}
        |{"user": "alice", "ts": "2024-01-01 12:00:14", "amount": 2.0}
        |{"user": "alice", "ts": "2024-01-01 12:00:17", "amount": 3.0}
        |{"user": "alice", "ts": "2024-01-01 12:00:25", "amount": 4.0}
        |{"user": "alice", "ts": "2024-01-01 12:00:31", "amount": 5.0}
        |{"user": "alice", "ts": "2024-01-01 12:01:00", "amount": 6.0}
        |""".stripMargin.getBytes(StandardCharsets.UTF_8))

    val windows: DataFrame = spark.readStream
      .schema("user STRING, ts TIMESTAMP, amount DOUBLE")
      .json(input.toString)
      .withWatermark("ts", "5 seconds")
      .groupBy($"user", sliding_window($"ts", "10 seconds"))
      .agg(count("*").as("n"), sum($"amount").as("total"))

    val query = windows.writeStream
      .outputMode("append")
      .format("memory")
      .queryName("closed_windows")
      .option("checkpointLocation", dir.resolve("checkpoint").toString)
      .trigger(org.apache.spark.sql.streaming.Trigger.AvailableNow())
      .start()
    query.awaitTermination()
    spark.table("closed_windows").orderBy($"sliding_window.start").show(truncate = false)
    println(query.lastProgress.stateOperators.head.operatorName)

    spark.stop()
  }
}
