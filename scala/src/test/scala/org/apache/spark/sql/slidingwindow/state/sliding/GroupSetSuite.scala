package org.apache.spark.sql.slidingwindow.state
package sliding

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.types.{DataType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String

/** The set of groups against a plain set, through growth, duplicates and absent rows. */
class GroupSetSuite extends AnyFunSuite {
  private val project = UnsafeProjection.create(Array[DataType](LongType, StringType))

  /** A group (n, "g" * (n % 5)), copied, as the store hands over. */
  private def group(n: Long) = project(InternalRow(n, UTF8String.fromString("g" * (n % 5).toInt))).copy()

  test("random adds and lookups") {
    val rnd = new Random(5)
    for (seq <- 0 until 20) {
      val set = new GroupSet
      val model = scala.collection.mutable.Set.empty[Long]
      val range = 1 + rnd.nextInt(20000)
      for (_ <- 0 until 5000) {
        val n = rnd.nextInt(range).toLong
        if (rnd.nextBoolean()) { assertResult(!model.contains(n), s"sequence $seq, add $n")(set.add(group(n))); model += n }
        else assertResult(model.contains(n), s"sequence $seq, group $n")(set.contains(group(n)))
      }
      assertResult(model.isEmpty)(set.isEmpty)
      for (n <- 0L until range) assertResult(model.contains(n), s"sequence $seq, group $n")(set.contains(group(n)))
    }
  }
}
