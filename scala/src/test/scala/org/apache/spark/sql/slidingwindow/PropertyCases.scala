package org.apache.spark.sql.slidingwindow

/**
 * How many random cases a randomized suite runs: its own count, scaled by
 * `-Dswa.properties.scale` (by default 1), and at least one. The Sparks other than the default one
 * run a quarter of them (tests/test_scala_unit.py): there the cases check that Spark's expressions,
 * rows and codegen, which a quarter of the cases reach as the whole does; the algorithm is the
 * same on every Spark. The operator harness's streams have their own count (`HarnessProperty`).
 */
object PropertyCases {
  def apply(count: Int): Int =
    sys.props.get("swa.properties.scale").map(s => math.max(1, math.round(count * s.toDouble).toInt)).getOrElse(count)
}
