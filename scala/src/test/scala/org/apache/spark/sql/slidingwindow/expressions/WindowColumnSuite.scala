package org.apache.spark.sql.slidingwindow.expressions

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, CreateArray, CreateNamedStruct, Expression, GetStructField, InterpretedUnsafeProjection, Literal, UnsafeProjection}
import org.apache.spark.sql.types.{LongType, TimestampNTZType, TimestampType}

/**
 * [[WindowColumn]] against `CreateNamedStruct` of the same bounds, generated and interpreted,
 * alone and read by other expressions of the same projection, over random bounds.
 */
class WindowColumnSuite extends AnyFunSuite {
  private val start = BoundReference(0, LongType, nullable = false)
  private val end = BoundReference(1, LongType, nullable = false)

  private def outputs(window: Expression, named: Expression): Seq[(Expression, Expression)] = Seq(
    window -> named,
    CreateArray(Seq(window, window)) -> CreateArray(Seq(named, named)),
    GetStructField(window, 1) -> GetStructField(named, 1),
    CreateNamedStruct(Seq(Literal("w"), window, Literal("n"), start)) ->
      CreateNamedStruct(Seq(Literal("w"), named, Literal("n"), start)))

  test("same rows as a named struct") {
    val rnd = new Random(5)
    for (timeType <- Seq(TimestampType, TimestampNTZType)) {
      val windowType = WindowFunction.windowType(timeType)
      val window = WindowColumn(start, end, windowType)
      val named = CreateNamedStruct(Seq(Literal("start"), start, Literal("end"), end))
      for ((ours, theirs) <- outputs(window, named)) {
        val expected = UnsafeProjection.create(Seq(theirs))
        val generated = UnsafeProjection.create(Seq(ours))
        val interpreted = InterpretedUnsafeProjection.createProjection(Seq(ours))
        // Rows kept from earlier calls must not change: the generated code reuses its row.
        val kept = (0 until 200).map { _ =>
          val s = rnd.nextLong()
          val input = InternalRow(s, s + rnd.nextInt(1000000))
          val want = expected(input).copy()
          assertResult(want, s"$ours, generated")(generated(input).copy())
          assertResult(want, s"$ours, interpreted")(interpreted(input).copy())
          (input, want)
        }
        kept.foreach { case (input, want) => assertResult(want)(generated(input)) }
      }
      assertResult(windowType)(window.dataType)
      assert(!window.nullable)
    }
  }
}
