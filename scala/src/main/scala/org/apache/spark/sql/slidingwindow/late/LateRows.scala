package org.apache.spark.sql.slidingwindow.late

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Cast, Expression, JoinedRow, SpecificInternalRow, UnsafeProjection}
import org.apache.spark.sql.types.DataType
import org.apache.spark.unsafe.types.UTF8String

/**
 * The rows one task of a streaming operator drops as late: counted (`numRowsDroppedByWatermark`),
 * and written to the query's late-rows table where it has one ([[LateRowsFile]]), each with the
 * micro-batch, the watermark it missed, the operator and the reason ([[LateRowsColumns]]).
 */
final class LateRows private (table: LateRows.TableRows) {
  /** The rows dropped. */
  var count = 0L

  /** Drops `row` (an input row of the operator), whose time is `timeMicros`. */
  def add(row: InternalRow, timeMicros: Long): Unit = {
    count += 1
    if (table != null) table.write(row, timeMicros)
  }

  /** The rows written to the table. */
  def written: Long = if (table == null) 0L else table.file.written

  /** Completes the task's file, if it wrote one: before the state commits. */
  def commit(): Unit = if (table != null) table.file.commit()
}

object LateRows {
  /** Counted only: the query has no late-rows table. */
  def counted(): LateRows = new LateRows(null)

  /**
   * Counted and written to `output`'s table, by partition `partition`'s attempt `attempt`.
   *
   * @param input           the types of the operator's input columns
   * @param lateMicros      the operator's watermark for late rows
   * @param sparkLateMicros Spark's own: a row after it but at or before the operator's is late
   *                        because of what the operator emitted while its input was quiet
   */
  def written(output: LateRowsOutput, partition: Int, attempt: Int, input: Seq[DataType], lateMicros: Long,
      sparkLateMicros: Long): LateRows =
    new LateRows(new TableRows(new LateRowsFile(output, partition, attempt), output, input, lateMicros, sparkLateMicros))

  private final class TableRows(val file: LateRowsFile, output: LateRowsOutput, input: Seq[DataType],
      lateMicros: Long, sparkLateMicros: Long) {
    private val metadata = LateRowsColumns.metadata.fields.map(_.dataType).toSeq
    private val why = new SpecificInternalRow(metadata)
    why.setLong(0, output.batchId)
    why.update(2, UTF8String.fromString(output.target.operator))
    why.setLong(3, output.target.operatorId)
    private val behindWatermark = UTF8String.fromString(LateRowsColumns.behindWatermark)
    private val closedWhileIdle = UTF8String.fromString(LateRowsColumns.closedWhileIdle)
    private val project = UnsafeProjection.create(
      // Each read as its column's type (the time of trailing windows: `_w0`'s microseconds as the
      // TIMESTAMP they are), then as the table holds it.
      output.columns.zipWithIndex.map { case (w, c) =>
        stored(BoundReference(w.ordinal, w.field.dataType, nullable = true), output.schema(c).dataType)
      } ++
        metadata.indices.map(i => BoundReference(input.size + i, metadata(i), nullable = false)))
    private val joined = new JoinedRow

    /** An input column as the table holds it: as it is, or as its text ([[LateRowsTypes]]). */
    private def stored(column: Expression, tableType: DataType): Expression =
      if (column.dataType == tableType) column else Cast(column, tableType, Some(output.timeZone))

    def write(row: InternalRow, timeMicros: Long): Unit = {
      if (timeMicros <= sparkLateMicros) {
        why.setLong(1, sparkLateMicros)
        why.update(4, behindWatermark)
      } else {
        why.setLong(1, lateMicros)
        why.update(4, closedWhileIdle)
      }
      file.write(project(joined(row, why)))
    }
  }
}
