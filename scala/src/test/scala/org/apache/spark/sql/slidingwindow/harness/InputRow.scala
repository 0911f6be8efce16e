package org.apache.spark.sql.slidingwindow.harness

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{IntegerType, LongType, TimestampType}

/**
 * One input row of the harness's streams: a group key `k` (None: null, a group of its own), an
 * event time `t` in microseconds (None: null, in no window), a value `v` (None: null) and an `id`
 * unique in its stream, which the aggregates collect so that a window's rows can be named.
 */
final case class InputRow(k: Option[Long], t: Option[Long], v: Option[Long], id: Int) {
  override def toString: String =
    s"#$id(k=${k.getOrElse("null")}, t=${t.getOrElse("null")}, v=${v.getOrElse("null")})"
}

/** The input columns every operator of the harness reads: k, t (a TIMESTAMP), v, id. */
object InputRow {
  val k: AttributeReference = AttributeReference("k", LongType, nullable = true)()
  val t: AttributeReference = AttributeReference("t", TimestampType, nullable = true)()
  val v: AttributeReference = AttributeReference("v", LongType, nullable = true)()
  val id: AttributeReference = AttributeReference("id", IntegerType, nullable = false)()
  val attributes: Seq[AttributeReference] = Seq(k, t, v, id)

  private def boxed(x: Option[Long]): Any = x match {
    case Some(value) => value
    case None => null
  }

  /** The rows as the operator's child hands them on: UnsafeRows, each a copy of its own. */
  def unsafe(rows: Seq[InputRow]): IndexedSeq[UnsafeRow] = {
    val project = UnsafeProjection.create(attributes.map(_.dataType).toArray)
    rows.map(r => project(InternalRow(boxed(r.k), boxed(r.t), boxed(r.v), r.id)).copy()).toIndexedSeq
  }
}
